package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/uri"

	"github.com/tilels/tilels/lower"
)

// Workspace imports (dsl/eval/imports.go). A document's analysis resolves
// imports of workspace modules under its import roots: its package root
// (lower.PackageRoot), the extraPaths setting, then the workspace
// folders. It reads a module from the open document of that path when
// there is one (unsaved edits included), else from disk: only a regular
// file under one of those roots, at most maxDocumentBytes. Each snapshot
// records the files its analysis read (lower.Snapshot.Imports); when one
// of them changes (didOpen, didChange or didClose of its document, or
// workspace/didChangeWatchedFiles), every open document that read it is
// analysed again as a whole and republished.

// docOptions returns the analysis options of the document at path ("" for
// a document that is not a file) under set.
func (s *Server) docOptions(set *Settings, path string) lower.Options {
	return s.docOptionsIn(set, path, s.workspaceFolders())
}

// docOptionsIn is docOptions with the workspace folders given (for callers
// that hold s.mu).
func (s *Server) docOptionsIn(set *Settings, path string, folders []string) lower.Options {
	set = s.withDefaults(set)
	opts := set.options()
	opts.Path = path
	if _, auto, _ := lower.ParseReference(set.Reference); auto {
		opts.Installed = s.installed(lower.PythonEnvironments(set.Python, s.getenv("VIRTUAL_ENV"), folders))
	}
	var roots []string
	for _, p := range set.ExtraPaths {
		if !filepath.IsAbs(p) {
			if len(folders) > 0 {
				p = filepath.Join(folders[0], p)
			}
		}
		roots = append(roots, filepath.Clean(p))
	}
	roots = append(roots, folders...)
	opts.ImportRoots = roots
	allowed := roots
	if path != "" {
		allowed = append([]string{lower.PackageRoot(path)}, roots...)
	}
	opts.ReadFile = func(p string) ([]byte, error) { return s.readModule(p, allowed) }
	return opts
}

// readModule returns the text of the module file p: its open document's,
// else the file's on disk when it lies under one of roots.
func (s *Server) readModule(p string, roots []string) ([]byte, error) {
	if d := s.doc(uri.File(p)); d != nil {
		return d.cur.Load().src, nil
	}
	r, ok := resolvePath(p)
	if !ok {
		return nil, fmt.Errorf("%s: not an absolute path: %w", p, os.ErrNotExist)
	}
	var resolved []string
	for _, root := range roots {
		if rr, ok := resolvePath(root); ok {
			resolved = append(resolved, rr)
		}
	}
	if !inside(r, resolved) {
		return nil, fmt.Errorf("%s: outside the import roots: %w", p, os.ErrNotExist)
	}
	st, err := os.Stat(r)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file: %w", p, os.ErrNotExist)
	}
	if st.Size() > maxDocumentBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", p, maxDocumentBytes)
	}
	return os.ReadFile(r)
}

// modulesChanged analyses again every open document (but the changed
// ones themselves) whose last analysis read one of paths.
func (s *Server) modulesChanged(paths ...string) {
	if len(paths) == 0 {
		return
	}
	s.mu.Lock()
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.mu.Unlock()
	set := s.settings()
	for _, d := range docs {
		if d.path == "" || slices.Contains(paths, d.path) {
			continue
		}
		snap := d.snap.Load()
		if snap == nil || snap.low == nil {
			continue
		}
		for _, p := range paths {
			if slices.Contains(snap.low.Imports, p) {
				s.log.Info("an imported module changed", "uri", string(d.uri), "module", p)
				d.reconfigure(s.docOptions(set, d.path))
				break
			}
		}
	}
}

// reconfigureAll analyses every open document again under the current
// settings and import roots.
func (s *Server) reconfigureAll() {
	s.mu.Lock()
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.mu.Unlock()
	set := s.settings()
	for _, d := range docs {
		d.reconfigure(s.docOptions(set, d.path))
	}
}

// installed returns the apache-tvm of the first of envs that has one,
// remembered per list of environments (the zero Installed when none has):
// finding it globs each environment's site-packages, once.
func (s *Server) installed(envs []string) lower.Installed {
	key := strings.Join(envs, "\x00")
	s.instMu.Lock()
	defer s.instMu.Unlock()
	if in, ok := s.inst[key]; ok {
		return in
	}
	in, _ := lower.FindInstalled(envs)
	if s.inst == nil {
		s.inst = map[string]lower.Installed{}
	}
	s.inst[key] = in
	if in.Version != "" {
		s.log.Info("reference release from the environment", "apache-tvm", in.Version, "env", in.Where)
	}
	return in
}

func (s *Server) getenv(k string) string {
	if s.opts.Getenv != nil {
		return s.opts.Getenv(k)
	}
	return os.Getenv(k)
}
