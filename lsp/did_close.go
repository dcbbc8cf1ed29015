package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// DidClose stops tracking a document and clears its diagnostics; the
// documents that import it are analysed again (imports.go).
func (s *Server) DidClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	delete(s.docs, p.TextDocument.URI)
	delete(s.views, p.TextDocument.URI)
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	d.close()
	s.forgetMachine(d) // machine.go
	if d.path != "" {
		// Importers read its unsaved text; from now on, the file's.
		s.modulesChanged(d.path) // imports.go
	}
	d.pubMu.Lock()
	defer d.pubMu.Unlock()
	s.notify("publishDiagnostics", s.client.PublishDiagnostics(s.ctx, &protocol.PublishDiagnosticsParams{URI: d.uri, Diagnostics: []protocol.Diagnostic{}}))
	return nil
}
