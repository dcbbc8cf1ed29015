package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/lower"
)

// published runs when the worker completed the analysis of a version:
// diagnostics are sent (unless a newer version exists, whose analysis
// will send them, or a newer one was sent), then the lowered views,
// inlay hints and code lenses are refreshed.
func (s *Server) published(d *document, snap *snapshot) {
	if !s.publishDiagnostics(d, snap) {
		return
	}
	s.refreshViews(d.uri)
	s.refreshHints()
	s.scheduleMachine(d) // machine.go: compile in the background, later
}

// publishDiagnostics sends snap's diagnostics with its version. It holds
// the document's publish lock, so a didClose's empty list is never
// followed by older diagnostics, and versions only go forward.
func (s *Server) publishDiagnostics(d *document, snap *snapshot) bool {
	d.pubMu.Lock()
	defer d.pubMu.Unlock()
	v := snap.text.version
	if d.isClosed() || d.cur.Load().version != v || (d.published && v < d.pubVersion) {
		return false
	}
	ds, complete := withPerfBudget(snap, perfBudget, lower.PublishWork) // perf.go
	ds = s.withFixFirst(d, snap, ds)                                    // fix_first.go
	params := &protocol.PublishDiagnosticsParams{
		URI:         d.uri,
		Version:     protocol.NewOptional(v),
		Diagnostics: s.toProtocol(d.uri, snap.text.m, ds),
	}
	if !complete {
		defer s.publishPerfLater(d, snap)
	}
	err := s.client.PublishDiagnostics(s.ctx, params)
	s.notify("publishDiagnostics", err)
	d.published, d.pubVersion = true, v
	return err == nil
}

// toProtocol converts diagnostics; the code is the stable tilels code and
// related places (for dispatch/fallback-only: each faster variant with
// its decline reason) become relatedInformation.
func (s *Server) toProtocol(u uri.URI, m *Mapper, ds []diag.Diagnostic) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(ds))
	for _, d := range ds {
		pd := protocol.Diagnostic{
			Range:    m.Range(d.Span),
			Severity: protocol.DiagnosticSeverity(d.Severity),
			Code:     protocol.String(d.Code),
			Source:   protocol.NewOptional("tilels"),
			Message:  protocol.String(d.Message),
		}
		for _, r := range d.Related {
			loc := protocol.Location{URI: u, Range: m.Range(r.Span)}
			if !r.Span.IsValid() {
				loc.Range = pd.Range
			}
			pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{Location: loc, Message: r.Message})
		}
		out = append(out, pd)
	}
	return out
}

// refreshHints asks the client to re-request inlay hints and code lenses
// (they were computed from an older snapshot).
func (s *Server) refreshHints() {
	caps := s.caps.Load()
	if !caps.inlayHintRefresh && !caps.codeLensRefresh {
		return
	}
	s.background("refresh", func(ctx context.Context) {
		if caps.inlayHintRefresh {
			s.notify("inlayHint/refresh", s.client.InlayHintRefresh(ctx))
		}
		if caps.codeLensRefresh {
			s.notify("codeLens/refresh", s.client.CodeLensRefresh(ctx))
		}
	})
}
