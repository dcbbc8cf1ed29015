package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// DidChange applies the edits to a new text version and schedules its
// analysis (cancelling the one in flight); it returns at once. A version
// not newer than the current one is out of order and ignored: applying
// its edits to a newer text would corrupt the document.
func (s *Server) DidChange(_ context.Context, p *protocol.DidChangeTextDocumentParams) error {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		s.log.Warn("didChange of a document that is not open", "uri", string(p.TextDocument.URI))
		return nil
	}
	cur := d.cur.Load()
	if p.TextDocument.Version <= cur.version {
		s.log.Warn("ignored an out-of-order didChange", "uri", string(d.uri), "version", p.TextDocument.Version, "current", cur.version)
		return nil
	}
	src, err := applyChanges(cur.src, p.ContentChanges)
	if err != nil {
		s.log.Warn("ignored a didChange", "uri", string(d.uri), "err", err)
		return nil
	}
	t := newText(p.TextDocument.Version, src)
	d.cur.Store(t)
	d.schedule(t)
	if d.path != "" {
		s.modulesChanged(d.path) // imports.go
	}
	return nil
}
