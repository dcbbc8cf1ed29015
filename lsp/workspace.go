package lsp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The file system rules. The server touches the disk in two places, and
// both are confined to the workspace folders the client names (initialize's
// workspaceFolders, else its rootUri or rootPath, then
// workspace/didChangeWorkspaceFolders):
//
//   - a tilels-lowered view of a document that is not open reads the
//     source from disk: only a regular file (never a device or a FIFO)
//     inside a workspace folder, at most maxDocumentBytes of it;
//   - tilels.writeCUDA (and the "Write lowered CUDA" action) writes
//     <stem>.cu beside an open document: only when the document and the
//     target lie inside a workspace folder, and the target, if it exists,
//     is a regular file.
//
// "Inside" is decided on cleaned absolute paths with symbolic links
// resolved (filepath.EvalSymlinks, on the longest part of the path that
// exists), so neither `..` segments nor a link out of the folder escape
// it. Without a workspace folder the server reads and writes nothing.

// maxDocumentBytes is the largest document the server analyses (didOpen,
// didChange) or reads from disk: the limit of tilels --lower
// (headless.MaxInputBytes). A larger document gets one lower/too-large
// error instead of an analysis.
const maxDocumentBytes = 16 << 20

// setFolders replaces the workspace folders.
func (s *Server) setFolders(paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.folders = nil
	for _, p := range paths {
		if r, ok := resolvePath(p); ok && !slices.Contains(s.folders, r) {
			s.folders = append(s.folders, r)
		}
	}
}

// initFolders reads the workspace folders from initialize's parameters.
func (s *Server) initFolders(p *protocol.InitializeParams) {
	var paths []string
	if fs, ok := p.WorkspaceFolders.Get(); ok && len(fs) > 0 {
		for _, f := range fs {
			paths = append(paths, folderPath(f.URI))
		}
	} else if p.RootURI != nil && *p.RootURI != "" {
		paths = append(paths, folderPath(*p.RootURI))
	} else if root, ok := p.RootPath.Get(); ok && root != "" {
		paths = append(paths, root)
	}
	s.setFolders(paths)
}

// folderPath is the file system path of a folder URI ("" when it is not a
// file URI: such a folder contains nothing tilels reads or writes).
func folderPath(u uri.URI) string {
	if !u.IsFile() {
		return ""
	}
	return u.FsPath()
}

// workspaceFolders returns the current folders (resolved paths).
func (s *Server) workspaceFolders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.folders)
}

// resolvePath cleans an absolute path and resolves the symbolic links of
// its longest existing prefix (and a dangling link at its end: where it
// points); false for a path that is not absolute.
func resolvePath(p string) (string, bool) {
	return resolveN(p, 0)
}

func resolveN(p string, depth int) (string, bool) {
	if p == "" || !filepath.IsAbs(p) {
		return "", false
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r, true
	}
	// The longest prefix that exists: a link there (dangling, or leading
	// to what does not exist yet) is resolved where it points.
	dir, rest := p, ""
	for {
		if info, err := os.Lstat(dir); err == nil {
			if info.Mode()&os.ModeSymlink != 0 && depth < 40 {
				to, err := os.Readlink(dir)
				if err != nil {
					return p, true
				}
				if !filepath.IsAbs(to) {
					to = filepath.Join(filepath.Dir(dir), to)
				}
				return resolveN(filepath.Join(to, rest), depth+1)
			}
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				return filepath.Join(r, rest), true
			}
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p, true
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// fileKind names what a file that is not regular is, for messages.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// inside reports whether the resolved path p lies in one of folders.
func inside(p string, folders []string) bool {
	for _, f := range folders {
		if p == f || strings.HasPrefix(p, f) && (strings.HasSuffix(f, string(filepath.Separator)) || p[len(f)] == filepath.Separator) {
			return true
		}
	}
	return false
}

// confine returns path resolved (see resolvePath) when it lies inside a
// workspace folder, else an error saying why it is refused; what names
// the operation for the message ("read", "write").
func (s *Server) confine(path, what string) (string, error) {
	folders := s.workspaceFolders()
	if len(folders) == 0 {
		return "", fmt.Errorf("%s %s: no workspace folder is open; tilels reads and writes files only inside workspace folders", what, path)
	}
	r, ok := resolvePath(path)
	if !ok {
		return "", fmt.Errorf("%s %s: not an absolute path", what, path)
	}
	if !inside(r, folders) {
		shown := path
		if r != filepath.Clean(path) {
			shown += " (" + r + ")"
		}
		return "", fmt.Errorf("%s %s: outside the workspace folders (%s); tilels reads and writes files only inside them", what, shown, strings.Join(folders, ", "))
	}
	return r, nil
}

// readSource reads a source file for a lowered view of a document that is
// not open: a regular file inside a workspace folder, at most
// maxDocumentBytes.
func (s *Server) readSource(path string) ([]byte, error) {
	r, err := s.confine(path, "read")
	if err != nil {
		return nil, err
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer; the file is
	// then checked on its descriptor, so it cannot be swapped in between.
	f, err := os.OpenFile(r, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file (%s)", path, fileKind(info.Mode()))
	}
	if info.Size() > maxDocumentBytes {
		return nil, fmt.Errorf("read %s: the file holds %d bytes, more than the %d bytes (16 MiB) tilels analyses", path, info.Size(), maxDocumentBytes)
	}
	src, err := io.ReadAll(io.LimitReader(f, maxDocumentBytes+1))
	if err != nil {
		return nil, err
	}
	if len(src) > maxDocumentBytes {
		return nil, fmt.Errorf("read %s: the file holds more than the %d bytes (16 MiB) tilels analyses", path, maxDocumentBytes)
	}
	return src, nil
}

// cuTarget returns where tilels.writeCUDA writes the CUDA of document d
// (kernel "" for the whole file): <stem>.cu beside it, both inside a
// workspace folder, or an error saying why not.
func (s *Server) cuTarget(d *document, kernel string) (string, error) {
	if d.path == "" {
		return "", fmt.Errorf("%s is not a file", d.uri)
	}
	src, err := s.confine(d.path, "write beside")
	if err != nil {
		return "", err
	}
	name := cuName(filepath.Base(src), kernel)
	if name != filepath.Base(name) || name == ".cu" {
		return "", fmt.Errorf("write %s: not a file name", name)
	}
	target, err := s.confine(filepath.Join(filepath.Dir(src), name), "write")
	if err != nil {
		return "", err
	}
	info, err := os.Lstat(target)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("write %s: %w", target, err)
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("write %s: not a regular file (%s)", target, fileKind(info.Mode()))
	}
	return target, nil
}
