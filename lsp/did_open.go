package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// DidOpen starts tracking a document and analyses it; the documents that
// import it are analysed again (imports.go).
func (s *Server) DidOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	item := p.TextDocument
	t := newText(item.Version, []byte(item.Text))
	s.mu.Lock()
	old := s.docs[item.URI]
	d := s.newDocument(item.URI, t)
	s.docs[item.URI] = d
	s.mu.Unlock()
	if old != nil {
		s.log.Warn("didOpen of a document already open; replacing it", "uri", string(item.URI))
		old.close()
	}
	d.schedule(t)
	if d.path != "" {
		s.modulesChanged(d.path) // its text, not the file's, is what importers read now (imports.go)
	}
	return nil
}
