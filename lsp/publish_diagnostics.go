package lsp

import (
	"context"
	"runtime"

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
	d.pubCount++
	if s.hookPublished != nil {
		s.hookPublished(d.uri, v, d.pubCount)
	}
	return err == nil
}

// publishPreview sends the preview of version t (lower.Preview: the
// first case of each def analysed, what the other cases told carried from
// the previous version) while its complete analysis runs; the complete
// publish of the same version replaces it. Like publishDiagnostics it
// sends nothing for a version that is not the document's newest.
func (s *Server) publishPreview(d *document, t *docText, pv *lower.Preview) {
	d.pubMu.Lock()
	defer d.pubMu.Unlock()
	v := t.version
	if d.isClosed() || d.cur.Load().version != v || (d.published && v < d.pubVersion) {
		return
	}
	err := s.client.PublishDiagnostics(s.ctx, &protocol.PublishDiagnosticsParams{
		URI:         d.uri,
		Version:     protocol.NewOptional(v),
		Diagnostics: s.toProtocol(d.uri, t.m, pv.Diags),
	})
	s.notify("publishDiagnostics", err)
	s.log.Debug("published a preview", "uri", string(d.uri), "version", v, "records", pv.Records, "carried", pv.Carried)
	d.published, d.pubVersion = true, v
	d.pubCount++
	// The complete analysis that follows keeps every core busy for tens of
	// milliseconds: let the goroutines that deliver the notification run
	// first (over stdio the write is done already; an in-process client's
	// reader waited up to a scheduler slice per hop behind the analysis:
	// BenchmarkKeystrokeProduction/file's preview p99 18-58 ms).
	runtime.Gosched()
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
