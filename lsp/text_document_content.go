package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// TextDocumentContent serves the tilels-lowered virtual documents (LSP
// 3.18): the CUDA or TIRx of an open source document at its newest
// version, stamped with that version. The view is remembered and
// refreshed (workspace/textDocumentContent/refresh) whenever a new
// version of the source is analysed.
func (s *Server) TextDocumentContent(ctx context.Context, p *protocol.TextDocumentContentParams) (*protocol.TextDocumentContentResult, error) {
	ref, err := parseLoweredURI(p.URI)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	d := s.doc(ref.source)
	if d == nil {
		return s.contentFromDisk(ref)
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.views[ref.source] == nil {
		s.views[ref.source] = map[uri.URI]bool{}
	}
	s.views[ref.source][p.URI] = true
	s.mu.Unlock()
	if ref.kind == "ptx" || ref.kind == "sass" {
		return &protocol.TextDocumentContentResult{Text: s.machineText(d, snap, ref)}, nil // machine.go
	}
	return &protocol.TextDocumentContentResult{Text: loweredText(d, snap, ref)}, nil
}

// contentFromDisk serves a view whose source is not open (an editor
// restoring its tabs, or the source closed): the file as saved, when it
// is a regular file inside a workspace folder (workspace.go).
func (s *Server) contentFromDisk(ref loweredRef) (*protocol.TextDocumentContentResult, error) {
	if !ref.source.IsFile() {
		return nil, jsonrpc2.Errorf(requestFailed, "%s is not open", ref.source)
	}
	if ref.kind == "ptx" || ref.kind == "sass" {
		return &protocol.TextDocumentContentResult{Text: "// tilels: open " + filepath.Base(ref.source.FsPath()) + " to see its " + strings.ToUpper(ref.kind) + "\n"}, nil
	}
	src, err := s.readSource(ref.source.FsPath())
	if err != nil {
		return nil, jsonrpc2.Errorf(requestFailed, "%s is not open and cannot be read: %v", ref.source, err)
	}
	opts := s.docOptions(s.settings(), ref.source.FsPath()) // imports.go
	low, err := lower.NewSession(opts).Analyze(s.ctx, source.NewFile(filepath.Base(ref.source.FsPath()), src))
	if err != nil {
		return nil, err
	}
	d := &document{uri: ref.source, path: ref.source.FsPath()}
	return &protocol.TextDocumentContentResult{Text: loweredText(d, newSnapshot(newText(-1, src), low, opts, 0), ref)}, nil
}

// loweredText is the content of a lowered view: a stamp line (and one
// line per kernel def with cases naming the case shown), then the output
// (or the reason there is none).
func loweredText(d *document, snap *snapshot, ref loweredRef) string {
	text, _ := loweredMap(d, snap, ref, false)
	return text
}

// loweredMap is loweredText and, when ranges is set, where each kernel
// and tile call is in it (lower.OutputRange, lines of the whole text:
// the stamp lines counted).
func loweredMap(d *document, snap *snapshot, ref loweredRef, ranges bool) (string, []lower.OutputRange) {
	comment := "//"
	if ref.kind == "tirx" {
		comment = "#"
	}
	what := "all kernels"
	if ref.kernel != "" {
		what = "kernel " + ref.kernel
	}
	version := fmt.Sprintf("version %d", snap.text.version)
	if snap.text.version < 0 {
		version = "as saved" // not open: read from disk
	}
	sel := d.selected()
	printed, cased := snap.kernels(sel, ref.kernel)
	stamp := fmt.Sprintf("%s tilels: lowered from %s, %s, %s, %s\n", comment, d.name(), version, lower.PrintArch(printed, snap.opts), what)
	for _, k := range cased {
		stamp += fmt.Sprintf("%s tilels: %s case %d/%d: %s\n", comment, k.Name, k.CaseIndex, k.CaseCount, k.CaseLabel)
	}
	var (
		cuda, tirx string
		rs         []lower.OutputRange
		err        error
	)
	if ranges {
		cuda, tirx, rs, err = snap.loweredMap(sel, ref.kernel, ref.kind)
		for i := range rs {
			rs[i].Start += 1 + len(cased)
			rs[i].End += 1 + len(cased)
		}
	} else {
		cuda, tirx, err = snap.lowered(sel, ref.kernel)
	}
	if ref.kind == "tirx" {
		if err != nil && tirx == "" {
			return stamp + fmt.Sprintf("%s %v\n", comment, err), nil
		}
		return stamp + tirx, rs
	}
	if err != nil {
		return stamp + fmt.Sprintf("%s %v\n", comment, err), nil
	}
	return stamp + cuda, rs
}

// refreshViews asks the client to re-read the lowered views of src.
func (s *Server) refreshViews(src uri.URI) {
	if !s.caps.Load().textDocumentContent {
		return
	}
	s.mu.Lock()
	var us []uri.URI
	for u := range s.views[src] {
		us = append(us, u)
	}
	s.mu.Unlock()
	if len(us) == 0 {
		return
	}
	s.background("textDocumentContent/refresh", func(ctx context.Context) {
		for _, u := range us {
			s.notify("textDocumentContent/refresh", s.client.TextDocumentContentRefresh(ctx, &protocol.TextDocumentContentRefreshParams{URI: u}))
		}
	})
}
