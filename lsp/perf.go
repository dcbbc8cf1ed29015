package lsp

import (
	"slices"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// withPerf returns snap's diagnostics with the performance warnings of its
// calls (lower.Snapshot.PerfDiags: the memory figures of a kernel record
// are computed once and kept with it, so an edit pays only for the
// kernels it re-analysed), sorted.
func withPerf(snap *snapshot) []diag.Diagnostic {
	perf := snap.low.PerfDiags()
	if len(perf) == 0 {
		return snap.low.Diags
	}
	out := append(slices.Clone(snap.low.Diags), perf...)
	diag.Sort(out)
	return out
}

// perfFixes returns the verified quick fixes of the performance warnings
// whose span touches [lo, hi] (lower.Snapshot.PerfFixes: one analysis of
// the changed file per candidate, only when code actions are asked for).
func perfFixes(snap *snapshot, lo, hi source.Pos) []lower.Fix {
	var out []lower.Fix
	for _, d := range snap.low.PerfDiags() {
		if d.Code == lower.CodeBankConflicts && d.Span.Start <= hi && lo <= d.Span.End {
			out = append(out, snap.low.PerfFixes(snap.opts, d.Span)...)
		}
	}
	return out
}
