package lower

// launch/partial-warp: a kernel whose T.thread_id([N]) (N > 32) is not a
// multiple of 32 launches a last warp with N % 32 lanes; the tile calls of the
// reference count the full warps only (thread_cnt=96 for 100 threads), so
// the extra lanes take no part in them. The quick fix rounds N to a
// multiple of 32 (down and up), each verified by analysing the changed file.

import (
	"fmt"
	"strconv"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// CodePartialWarp is the warning of a thread count that is not a
// multiple of 32.
const CodePartialWarp = "launch/partial-warp"

// partialWarpDiags returns the launch/partial-warp warnings of fn, at
// the extent literal where f writes one (else at the declaration).
func partialWarpDiags(f *source.File, fn *ir.Func) []diag.Diagnostic {
	if fn == nil {
		return nil
	}
	var out []diag.Diagnostic
	ir.WalkStmts(fn.Body, func(st ir.Stmt) {
		sid, ok := st.(*ir.ScopeID)
		if !ok || sid.Kind != ir.ThreadID || len(sid.Extents) != 1 || sid.Extents[0]%32 == 0 || sid.Extents[0] < 32 {
			// Fewer than 32 threads: one partial warp, on purpose (a
			// single-thread kernel); the tile calls count them all.
			return
		}
		n := sid.Extents[0]
		span := sid.Span
		if sp, ok := intLiteralIn(f, span, n); ok {
			span = sp
		}
		out = append(out, diag.Warningf(span, CodePartialWarp,
			"T.thread_id([%d]) is not a multiple of 32: the last warp has %d of 32 lanes, and tile calls count %d threads (%d full warps); use %s",
			n, n%32, n/32*32, n/32, roundings(n)))
	})
	return out
}

// roundings names the multiples of 32 around n (above 32): "96 or 128".
func roundings(n int64) string {
	return fmt.Sprintf("%d or %d", n/32*32, (n/32+1)*32)
}

// partialWarpFixes: the thread count rounded down and up to a multiple of
// 32, nearest first, each verified (the warning gone, no more errors).
func (s *Snapshot) partialWarpFixes(opts Options, d diag.Diagnostic) []Fix {
	if s.File == nil || d.Span.Start < 0 || int(d.Span.End) > len(s.File.Src) {
		return nil
	}
	n, err := strconv.ParseInt(s.File.Text(d.Span), 10, 64)
	if err != nil || n%32 == 0 {
		return nil
	}
	down, up := n/32*32, (n/32+1)*32
	order := []int64{up, down}
	if n-down < up-n {
		order = []int64{down, up}
	}
	errs0, _ := count(s.Diags)
	var out []Fix
	for _, m := range order {
		if m == 0 {
			continue
		}
		c := candidate{title: fmt.Sprintf("Use %d threads (T.thread_id([%d]), %d full warps)", m, m, m/32), edits: []Edit{{d.Span, strconv.FormatInt(m, 10)}}}
		res := s.rerunOf(opts, c.edits)
		if !res.ok {
			continue
		}
		if errs, left := res.count(CodePartialWarp); errs > errs0 || left > 0 {
			continue
		}
		c.title += " (verified)"
		f := toFix(c, CodePartialWarp, d.Span)
		f.Preferred = len(out) == 0
		out = append(out, f)
	}
	return out
}
