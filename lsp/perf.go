package lsp

import (
	"context"
	"slices"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// perfBudget is the number of kernels whose memory figures a publish
// computes before it sends the diagnostics (the others follow in a second
// publish): an edit re-analyses one kernel, a first open of a 5 MB file
// thousands (TestLargeFile). Each is also bounded to lower.PublishWork
// statements of analysis: a kernel whose figures take longer (a
// persistent GEMM whose 148 CTAs the machine runs one by one) follows in
// the second publish too, and the keystroke does not wait for it.
const perfBudget = 32

// withPerf returns snap's diagnostics with the performance warnings of its
// calls (lower.Snapshot.PerfDiags: the memory figures of a kernel record
// are computed once and kept with it, so an edit pays only for the
// kernels it re-analysed), sorted.
func withPerf(snap *snapshot) []diag.Diagnostic {
	ds, _ := withPerfBudget(snap, -1, 0)
	ds, _ = snap.low.FixFirst(ds) // the message as published (fix_first.go)
	return ds
}

// withPerfBudget is withPerf computing at most maxNew kernels' warnings,
// each within work statements of memory analysis (0: no bound); complete
// is false when some were left out.
func withPerfBudget(snap *snapshot, maxNew int, work int64) ([]diag.Diagnostic, bool) {
	perf, complete := snap.low.PerfDiagsWithin(maxNew, work)
	if len(perf) == 0 {
		return snap.low.Diags, complete
	}
	out := append(slices.Clone(snap.low.Diags), perf...)
	diag.Sort(out)
	return out, complete
}

// publishPerfLater computes the warnings a budgeted publish left out, in
// the background, and publishes the version again (unless a newer one
// came).
func (s *Server) publishPerfLater(d *document, snap *snapshot) {
	s.background("perf diagnostics", func(context.Context) {
		// given up for a newer version (or a closed document): its own
		// publish comes, and this one's figures would only take its CPU
		stale := func() bool { return d.isClosed() || d.cur.Load().version != snap.text.version }
		if _, complete := snap.low.PerfDiagsUnless(stale); complete {
			s.publishDiagnostics(d, snap)
		}
	})
}

// perfFixes returns the verified quick fixes of the performance warnings
// whose span touches [lo, hi] (lower.Snapshot.PerfFixes: one analysis of
// the changed file per candidate, only when code actions are asked for).
func perfFixes(snap *snapshot, lo, hi source.Pos) []lower.Fix {
	var out []lower.Fix
	asked := map[source.Span]bool{}
	for _, d := range snap.low.PerfDiags() {
		if (d.Code == lower.CodeBankConflicts || d.Code == lower.CodeUncoalesced) && d.Span.Start <= hi && lo <= d.Span.End && !asked[d.Span] {
			asked[d.Span] = true // (one call's warnings: its fixes at once)
			out = append(out, snap.low.PerfFixes(snap.opts, d.Span)...)
		}
	}
	return out
}
