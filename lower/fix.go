package lower

// Quick fixes of diagnostics (issue 18): the edits an editor offers where
// a diagnostic has a local fix. Each is computed here, from the snapshot
// and its file, and the language server only converts it.
//
//   - dispatch/fallback-only: the smallest change of a tile extent, the
//     thread count (T.thread_id) or the call's scope (Tx.warp -> Tx.cta)
//     that makes a faster variant apply; each candidate is verified by
//     analysing the changed file (reanalyse: its edited kernels again,
//     the rest kept; the same result as a whole-file analysis) — the call
//     then selects a variant other than fallback, and the file has no
//     more errors and fewer fallback warnings — cheapest edit first.
//   - dispatch/forced-variant where the forced variant declines: the
//     variants that apply instead (the dispatch= string replaced, or
//     removed), each verified the same way; where the name is not
//     registered at all (and no other release registers it: the renames
//     of migrate.go), the registered name nearest by edit distance.
//   - eval/unknown-op (`Tx.cta.expp`): the nearest tile primitive;
//     eval/unresolved on a misspelt T.<name> (`T.thread_idd`): the
//     nearest name the T namespace has.
//   - launch/partial-warp (`T.thread_id([100])`): 96 or 128 threads.
//
// The verified fixes cost one analysis per candidate (at most maxVerify),
// tried only when an editor asks for the code actions of the
// diagnostic's range, and kept for the snapshot (memo).

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/tirxlib"
	"github.com/tilels/tilels/ir"
)

// CodeFallbackOnly is the warning of a call only the scalar fallback
// lowers (dispatch/pass.go).
const CodeFallbackOnly = "dispatch/fallback-only"

// The names a misspelt one is compared with, built once.
var (
	tNames = sync.OnceValue(tirxlib.TNames)
	txOps  = sync.OnceValue(tirxlib.TxOps)
	// txNames: what may follow `Tx.` (a tile primitive or a scope).
	txNames = sync.OnceValue(func() []string { return append(tirxlib.TxOps(), tirxlib.TxScopes()...) })
)

// maxVerify bounds the analyses one diagnostic's fixes may cost.
const maxVerify = 16

// QuickFixes returns the quick fixes of the snapshot's diagnostics whose
// span touches [lo, hi] (positions in the snapshot's file), the snapshot
// analysed with opts. The rename fixes of DispatchFixes and the
// performance fixes of PerfFixes are not repeated here.
func (s *Snapshot) QuickFixes(opts Options, lo, hi source.Pos) []Fix {
	var out []Fix
	seen := map[perfKey]bool{}
	for _, d := range s.Diags {
		if d.Span.Start > hi || d.Span.End < lo || seen[perfKey{d.Span, d.Code}] {
			continue
		}
		seen[perfKey{d.Span, d.Code}] = true
		switch d.Code {
		case CodeFallbackOnly:
			out = append(out, s.fallbackMemo(opts, d).fixes...)
		case CodeForcedVariant:
			out = append(out, s.memo(d, func() []Fix { return s.forcedFixes(opts, d) })...)
		case eval.CodeUnknownOp:
			out = append(out, s.txNameFixes(d)...)
		case eval.CodeUnresolved:
			out = append(out, s.tNameFixes(d)...)
		case CodePartialWarp:
			out = append(out, s.memo(d, func() []Fix { return s.partialWarpFixes(opts, d) })...)
		}
	}
	return out
}

// memo returns the fixes of d computed by compute, once per snapshot
// (fix_first.go: the snapshot's fixCache). An editor asks for the code
// actions of the cursor's range at each move (VS Code's light bulb), the
// language server computes the fallback fixes in the background after a
// publish (FallbackNote), and a verified fix costs analyses of the file;
// the snapshot is always analysed with the same options.
func (s *Snapshot) memo(d diag.Diagnostic, compute func() []Fix) []Fix {
	return s.fixes.get(perfKey{d.Span, d.Code}, func() fixEntry { return fixEntry{fixes: compute()} }).fixes
}

// callAt returns the record and index of the tile call whose span holds
// span (the first case's record of a def with several).
func (s *Snapshot) callAt(span source.Span) (*KernelView, int) {
	for _, kv := range s.Kernels {
		for i, d := range kv.Kernel.Calls {
			cs := kv.ToFile(d.Call.Span)
			if cs.Start <= span.Start && span.End <= cs.End {
				return kv, i
			}
		}
	}
	return nil, -1
}

// candidate is one edit a verified fix may make, and its size.
type candidate struct {
	title string
	cost  int
	edits []Edit
}

// apply returns src with edits made (they do not overlap).
func apply(src []byte, edits []Edit) []byte {
	es := slices.Clone(edits)
	slices.SortFunc(es, func(a, b Edit) int { return int(b.Span.Start - a.Span.Start) })
	out := slices.Clone(src)
	for _, e := range es {
		out = slices.Concat(out[:e.Span.Start], []byte(e.NewText), out[e.Span.End:])
	}
	return out
}

// reanalyse analyses the snapshot's file with edits made, as opts does
// (the release chosen again from the changed text), through a session
// whose previous version is s: only the kernels the edits touch are
// analysed again (a change at module level analyses the whole file).
// Measured on the 3,000-line corpus (BenchmarkFallbackFix3000, 2 loaded
// cores, benchstat -count 6): 558 -> 24 ms/op (median), 85 -> 5.9 MiB and
// 1142k -> 37k allocations for the three fixes of its first fallback warning.
func (s *Snapshot) reanalyse(opts Options, edits []Edit) *Snapshot {
	reanalyses.Add(1)
	o := opts
	o.chosen = nil
	ss := &Session{opts: o, last: s, gen: maxGen(s)}
	snap, err := ss.Analyze(context.Background(), source.NewFile(s.File.Name, apply(s.File.Src, edits)))
	if err != nil {
		return nil
	}
	return snap
}

// maxGen is the largest reduced-analysis number of s's views, so that the
// throwaway session of reanalyse numbers its own after them.
func maxGen(s *Snapshot) uint32 {
	var g uint32
	for _, views := range [][]*KernelView{s.Kernels, s.Partial} {
		for _, v := range views {
			g = max(g, v.gen)
		}
	}
	return g
}

// count returns how many of ds have severity error, and how many have
// one of codes.
func count(ds []diag.Diagnostic, codes ...string) (errs, n int) {
	for _, d := range ds {
		if d.Severity == diag.Error {
			errs++
		}
		if slices.Contains(codes, d.Code) {
			n++
		}
	}
	return errs, n
}

func toFix(c candidate, code string, forSpan source.Span) Fix {
	f := Fix{Title: c.title, Kind: QuickFix, Span: c.edits[0].Span, NewText: c.edits[0].NewText, Diag: code, For: forSpan}
	if len(c.edits) > 1 {
		f.More = slices.Clone(c.edits[1:])
	}
	return f
}

// ---- dispatch/fallback-only ----

// regionRule reads gmem_smem's "region size 300 not divisible by
// thread_cnt=128" among the decline reasons.
var regionRule = regexp.MustCompile(`region size (\d+) not divisible by thread_cnt=(\d+)`)

// fallbackFixes: the verified changes of shape, thread count or scope
// that make a faster variant than fallback lower the call of d.
func (s *Snapshot) fallbackFixes(opts Options, d diag.Diagnostic) []Fix {
	return s.fallbackEntry(opts, d, maxFixes).fixes
}

// maxFixes is how many verified fixes a fallback-only warning offers.
const maxFixes = 3

// fallbackEntry is fallbackFixes with the note of the first fix: its
// title and the variant that applies ("change the tile extent 30 to 32
// (gmem_smem applies, verified)"), what FixFirst puts in the warning. It
// stops at want fixes (1: the note alone, the first fix's).
func (s *Snapshot) fallbackEntry(opts Options, d diag.Diagnostic, want int) fixEntry {
	kv, i := s.callAt(d.Span)
	if kv == nil || s.File == nil {
		return fixEntry{}
	}
	k, dec := kv.Kernel, kv.Kernel.Calls[i]
	var region, tcnt int64
	if m := regionRule.FindStringSubmatch(d.Message); m != nil {
		region, _ = strconv.ParseInt(m[1], 10, 64)
		tcnt, _ = strconv.ParseInt(m[2], 10, 64)
	}
	var cands []candidate
	cands = append(cands, s.scopeCandidates(kv, dec)...)
	cands = append(cands, s.threadCandidates(kv, dec, region)...)
	cands = append(cands, s.shapeCandidates(kv, dec, region, tcnt)...)
	slices.SortStableFunc(cands, func(a, b candidate) int { return a.cost - b.cost })
	errs0, fb0 := count(s.Diags, CodeFallbackOnly, "dispatch/fallback")
	var out []Fix
	note := ""
	tried := 0
	for _, c := range cands {
		if tried == maxVerify || len(out) == want {
			break
		}
		tried++
		res := s.rerunOf(opts, c.edits)
		variant, ok := res.call(k, i)
		if !ok || variant == "" || variant == "fallback" {
			continue
		}
		if errs, fb := res.count(CodeFallbackOnly, "dispatch/fallback"); errs > errs0 || fb >= fb0 {
			continue
		}
		if note == "" {
			note = fmt.Sprintf("%s (%s applies, verified)", lowerFirst(c.title), variant)
		}
		c.title += fmt.Sprintf(": %s lowers through %s (verified)", dec.Call.Op, variant)
		f := toFix(c, CodeFallbackOnly, d.Span)
		f.Preferred = len(out) == 0
		out = append(out, f)
	}
	return fixEntry{fixes: out, note: note}
}

// scopeCandidates: the call at another scope of warp, warpgroup and cta
// (Tx.warp.copy -> Tx.cta.copy).
func (s *Snapshot) scopeCandidates(kv *KernelView, dec *dispatch.Decision) []candidate {
	tc := dec.Call
	op := kv.ToFile(tc.OpSpan)
	if !tc.OpSpan.IsValid() || int(op.End) > len(s.File.Src) {
		return nil
	}
	text := s.File.Text(op)
	if !strings.HasPrefix(text, "Tx.") || !strings.HasSuffix(text, "."+tc.Op) {
		return nil
	}
	var out []candidate
	for _, sc := range []string{"cta", "warpgroup", "warp"} {
		if sc == dec.Scope {
			continue
		}
		nt := "Tx." + sc + "." + tc.Op
		out = append(out, candidate{title: "Use " + nt, cost: 1, edits: []Edit{{op, nt}}})
	}
	return out
}

// threadLiteral finds the one-extent T.thread_id([N]) of k: the span of N
// in the file and N.
func (s *Snapshot) threadLiteral(kv *KernelView) (source.Span, int64, bool) {
	var at source.Span
	var n int64
	found := false
	ir.WalkStmts(kv.Kernel.Func.Body, func(st ir.Stmt) {
		if sid, ok := st.(*ir.ScopeID); ok && sid.Kind == ir.ThreadID && len(sid.Extents) == 1 && !found {
			if sp, ok := intLiteralIn(s.File, kv.ToFile(sid.Span), sid.Extents[0]); ok {
				at, n, found = sp, sid.Extents[0], true
			}
		}
	})
	return at, n, found
}

// intLiteralIn returns the span of the one integer literal of value v
// inside span of f.
func intLiteralIn(f *source.File, span source.Span, v int64) (source.Span, bool) {
	sites := intTokens(f, span, v)
	if len(sites) != 1 {
		return source.Span{}, false
	}
	return sites[0], true
}

// intTokens returns the spans of the decimal integer literals of value v
// inside span of f (not parts of names or floats).
func intTokens(f *source.File, span source.Span, v int64) []source.Span {
	if f == nil || span.Start < 0 || int(span.End) > len(f.Src) {
		return nil
	}
	want := strconv.FormatInt(v, 10)
	src := f.Src
	var out []source.Span
	for p := int(span.Start); p < int(span.End); {
		if !isDigit(src[p]) {
			p++
			continue
		}
		q := p
		for q < int(span.End) && isDigit(src[q]) {
			q++
		}
		before := p > 0 && (isIdent(src[p-1]) || src[p-1] == '.')
		after := q < len(src) && (isIdent(src[q]) || src[q] == '.')
		if !before && !after && string(src[p:q]) == want {
			out = append(out, source.Span{Start: source.Pos(p), End: source.Pos(q)})
		}
		p = q
	}
	return out
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isIdent(c byte) bool {
	return c == '_' || isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// threadCandidates: T.thread_id([N]) with another multiple of 32, nearest
// first; where the decline is "region size R not divisible by
// thread_cnt", only counts that divide R (for a cta-scope call).
func (s *Snapshot) threadCandidates(kv *KernelView, dec *dispatch.Decision, region int64) []candidate {
	span, n, ok := s.threadLiteral(kv)
	if !ok {
		return nil
	}
	var ns []int64
	for m := int64(32); m <= 1024; m += 32 {
		if m == n || (region > 0 && dec.Scope == "cta" && region%m != 0) {
			continue
		}
		ns = append(ns, m)
	}
	slices.SortStableFunc(ns, func(a, b int64) int { return int(abs(a-n) - abs(b-n)) })
	var out []candidate
	for _, m := range ns[:min(len(ns), 4)] {
		cost := int((abs(m-n) + 31) / 32)
		out = append(out, candidate{title: fmt.Sprintf("Use %d threads (T.thread_id([%d]))", m, m), cost: max(cost, 1),
			edits: []Edit{{span, strconv.FormatInt(m, 10)}}})
	}
	return out
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// shapeCandidates: the call's tile extents changed where the file writes
// them as literals (the call's region and the declarations of its
// buffers): each extent value to a nearby one, one or two values at a
// time, smallest total change first; with a "region size R not divisible
// by thread_cnt=T" decline only those whose region size T divides.
func (s *Snapshot) shapeCandidates(kv *KernelView, dec *dispatch.Decision, region, tcnt int64) []candidate {
	tc := dec.Call
	var places []source.Span
	places = append(places, kv.ToFile(tc.Span))
	var vals []int64
	for _, a := range tc.Args {
		r, ok := a.(*ir.Region)
		if !ok || r == nil || r.Buf == nil {
			continue
		}
		if r.Buf.Span.IsValid() {
			places = append(places, kv.ToFile(r.Buf.Span))
		}
		for _, e := range r.Extent {
			if v, ok := ir.ConstInt(e); ok && v > 1 && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	if len(vals) == 0 {
		return nil
	}
	places = append(places, constantLines(s.File, s.moduleAssigns(), places[1:])...)
	// sites: where each value is written, the call's dispatch string left out.
	sites := map[int64][]source.Span{}
	for _, v := range vals {
		for _, p := range places {
			for _, sp := range intTokens(s.File, p, v) {
				if tc.DispatchSpan.IsValid() && kv.ToFile(tc.DispatchSpan).Start <= sp.Start && sp.End <= kv.ToFile(tc.DispatchSpan).End {
					continue
				}
				if !slices.Contains(sites[v], sp) {
					sites[v] = append(sites[v], sp)
				}
			}
		}
	}
	near := func(v int64) []int64 {
		var out []int64
		for d := int64(1); d <= 8; d++ {
			out = append(out, v+d)
			if v-d > 1 {
				out = append(out, v-d)
			}
		}
		for _, m := range []int64{16, 32} {
			if up := (v + m - 1) / m * m; up != v && !slices.Contains(out, up) {
				out = append(out, up)
			}
		}
		return out
	}
	type change struct {
		from, to []int64
		cost     int
	}
	var chs []change
	for i, v := range vals {
		if len(sites[v]) == 0 {
			continue
		}
		for _, w := range near(v) {
			chs = append(chs, change{[]int64{v}, []int64{w}, int(abs(w - v))})
		}
		for _, u := range vals[i+1:] {
			if len(sites[u]) == 0 {
				continue
			}
			for _, w := range near(v) {
				for _, x := range near(u) {
					chs = append(chs, change{[]int64{v, u}, []int64{w, x}, int(abs(w-v) + abs(x-u))})
				}
			}
		}
	}
	ok := func(c change) bool {
		if region <= 0 || tcnt <= 0 {
			return true
		}
		r := region
		for j, v := range c.from {
			if r%v != 0 {
				return true // the region is not a product of these extents: let the analysis tell
			}
			r = r / v * c.to[j]
		}
		return r%tcnt == 0
	}
	slices.SortStableFunc(chs, func(a, b change) int { return a.cost - b.cost })
	var out []candidate
	for _, c := range chs {
		if !ok(c) {
			continue
		}
		var edits []Edit
		var what []string
		for j, v := range c.from {
			for _, sp := range sites[v] {
				edits = append(edits, Edit{sp, strconv.FormatInt(c.to[j], 10)})
			}
			what = append(what, fmt.Sprintf("%d to %d", v, c.to[j]))
		}
		out = append(out, candidate{title: "Change the tile extent " + strings.Join(what, " and "), cost: c.cost, edits: edits})
		if len(out) == 8 {
			break
		}
	}
	return out
}

// ---- dispatch/forced-variant ----

// forcedFixes: for a forced variant that declines, the variants that
// apply instead (dispatch= replaced, or removed), verified; for a name
// no release registers, the nearest registered one.
func (s *Snapshot) forcedFixes(opts Options, d diag.Diagnostic) []Fix {
	kv, i := s.callAt(d.Span)
	if kv == nil || s.File == nil {
		return nil
	}
	k, dec := kv.Kernel, kv.Kernel.Calls[i]
	tc, e := dec.Call, dec.Explanation
	if e == nil || tc.Dispatch == "" || !tc.DispatchSpan.IsValid() {
		return nil
	}
	at := kv.ToFile(tc.DispatchSpan)
	quote, ok := stringLiteral(s.File, at, tc.Dispatch)
	if !ok {
		return nil
	}
	target := dispatch.Target{Kind: "cuda", Release: s.Reference.Release}
	if k.Target != "" {
		target.Kind = k.Target
	}
	var names []string
	for _, v := range registry().VariantsIn(tc.Op, target) {
		if !slices.Contains(names, v.Name) {
			names = append(names, v.Name)
		}
	}
	if e.Error != "" {
		if len(e.Renames) > 0 {
			return nil // DispatchFixes renames it
		}
		var out []Fix
		for j, best := range nearest(tc.Dispatch, names) {
			out = append(out, Fix{Title: fmt.Sprintf("Change dispatch=%q to %q (did you mean)", tc.Dispatch, best), Kind: QuickFix, Preferred: j == 0,
				Span: at, NewText: quote + best + quote, Diag: CodeForcedVariant, For: d.Span})
		}
		return out
	}
	var cands []candidate
	for _, n := range names {
		if n != tc.Dispatch && n != "fallback" {
			cands = append(cands, candidate{title: fmt.Sprintf("Change dispatch=%q to %q", tc.Dispatch, n), edits: []Edit{{at, quote + n + quote}}})
		}
	}
	if rm, ok := dispatchArg(s.File, at); ok {
		cands = append(cands, candidate{title: fmt.Sprintf("Remove dispatch=%q", tc.Dispatch), cost: 1, edits: []Edit{{rm, ""}}})
	}
	if slices.Contains(names, "fallback") && tc.Dispatch != "fallback" {
		cands = append(cands, candidate{title: fmt.Sprintf("Change dispatch=%q to %q", tc.Dispatch, "fallback"), cost: 2, edits: []Edit{{at, quote + "fallback" + quote}}})
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return a.cost - b.cost })
	errs0, _ := count(s.Diags)
	var out []Fix
	for n, c := range cands {
		if n == maxVerify {
			break
		}
		res := s.rerunOf(opts, c.edits)
		variant, ok := res.call(k, i)
		if !ok || variant == "" {
			continue
		}
		if errs, _ := res.count(); errs >= errs0 {
			continue
		}
		if strings.HasPrefix(c.title, "Remove") && variant == "fallback" {
			continue // the change-to-fallback candidate says it plainly
		}
		c.title += fmt.Sprintf(": %s lowers through %s (verified)", tc.Op, variant)
		f := toFix(c, CodeForcedVariant, d.Span)
		f.Preferred = len(out) == 0 && variant != "fallback"
		out = append(out, f)
	}
	return out
}

// dispatchArg returns the span of `, dispatch="x"` around the string
// literal at (from the comma before the keyword to the literal's end).
func dispatchArg(f *source.File, at source.Span) (source.Span, bool) {
	src := f.Src
	p := int(at.Start) - 1
	for p >= 0 && (src[p] == ' ' || src[p] == '\t') {
		p--
	}
	if p < 0 || src[p] != '=' {
		return source.Span{}, false
	}
	p--
	for p >= 0 && (src[p] == ' ' || src[p] == '\t') {
		p--
	}
	const kw = "dispatch"
	if p+1 < len(kw) || string(src[p+1-len(kw):p+1]) != kw {
		return source.Span{}, false
	}
	p -= len(kw)
	for p >= 0 && (src[p] == ' ' || src[p] == '\t' || src[p] == '\n') {
		p--
	}
	if p < 0 || src[p] != ',' {
		return source.Span{}, false
	}
	return source.Span{Start: source.Pos(p), End: at.End}, true
}

// ---- names ----

// nearest returns the names of names nearest to s by edit distance, when
// near enough to be a misspelling (at most 2 edits, and fewer than half
// of s), shortest first (expp: exp, then exp2); none when s is one of them.
func nearest(s string, names []string) []string {
	var best []string
	bestD := 3
	for _, n := range names {
		if n == s {
			return nil
		}
		d := editDistance(s, n)
		switch {
		case d < bestD:
			best, bestD = []string{n}, d
		case d == bestD:
			best = append(best, n)
		}
	}
	if 2*bestD >= len(s) {
		return nil
	}
	slices.SortStableFunc(best, func(a, b string) int { return len(a) - len(b) })
	return best[:min(len(best), 3)]
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment: a swap of neighbours counts one).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// txNameFixes: `Tx.cta.expp` -> `Tx.cta.exp`, `Tx.ctaa.copy` -> `Tx.cta.copy`.
func (s *Snapshot) txNameFixes(d diag.Diagnostic) []Fix {
	name, _, names := txMisspelt(s.File, d)
	var out []Fix
	for j, best := range names {
		out = append(out, Fix{Title: fmt.Sprintf("Change %s to %s (did you mean)", name, best), Kind: QuickFix, Preferred: j == 0,
			Span: d.Span, NewText: best, Diag: eval.CodeUnknownOp})
	}
	return out
}

// txMisspelt reads an eval/unknown-op diagnostic at the misspelt name:
// the name, what the message writes before it ("Tx.cta."), and the
// nearest names (tile primitives after a scope; primitives and scopes
// right after Tx).
func txMisspelt(f *source.File, d diag.Diagnostic) (name, prefix string, names []string) {
	if f == nil || d.Span.Start < 0 || int(d.Span.End) > len(f.Src) {
		return "", "", nil
	}
	var cands []string
	if m := unknownTx.FindStringSubmatch(d.Message); m != nil {
		name, prefix, cands = m[2], m[1], txOps()
	} else if m := unknownTxAttr.FindStringSubmatch(d.Message); m != nil {
		name, prefix, cands = m[1], "Tx.", txNames()
	}
	if name == "" || name != f.Text(d.Span) {
		return "", "", nil
	}
	return name, prefix, nearest(name, cands)
}

// unresolvedT reads the T.<name> an eval/unresolved message is about:
// "`T.thread_idd([128])` is not modelled" or "`tvm.script.tirx.alloc_bufer(...)`".
var unresolvedT = regexp.MustCompile("`(?:T|tvm\\.script\\.tirx)\\.([A-Za-z_][A-Za-z_0-9]*)\\([^`]*` is not modelled")

// tNameFixes: `T.thread_idd([128])` -> `T.thread_id([128])`, every place
// the file writes the misspelt T.<name> (outside comments and strings).
func (s *Snapshot) tNameFixes(d diag.Diagnostic) []Fix {
	m := unresolvedT.FindStringSubmatch(d.Message)
	if m == nil || s.File == nil {
		return nil
	}
	name := m[1]
	names := tNames()
	if slices.Contains(names, name) {
		return nil
	}
	re := regexp.MustCompile(`\bT\.` + regexp.QuoteMeta(name) + `\b`)
	var locs [][]int
	for _, loc := range re.FindAllIndex(s.File.Src, -1) {
		line := s.File.Src[:loc[0]]
		if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
			line = line[i+1:]
		}
		if !bytes.ContainsAny(line, "#'\"") { // not in a comment or string
			locs = append(locs, loc)
		}
	}
	var out []Fix
	for j, best := range nearest(name, names) {
		var edits []Edit
		for _, loc := range locs {
			edits = append(edits, Edit{source.Span{Start: source.Pos(loc[0] + 2), End: source.Pos(loc[1])}, best})
		}
		if len(edits) == 0 {
			return nil
		}
		c := candidate{title: fmt.Sprintf("Change T.%s to T.%s (did you mean)", name, best), edits: edits}
		f := toFix(c, eval.CodeUnresolved, d.Span)
		f.Preferred = j == 0
		out = append(out, f)
	}
	return out
}

// didYouMean appends "; did you mean 'Tx.cta.exp'" to the messages of ds
// about a misspelt tile primitive or T.<name> (the names the quick fixes
// of txNameFixes and tNameFixes offer).
func didYouMean(f *source.File, ds []diag.Diagnostic) {
	for i := range ds {
		d := &ds[i]
		var names []string
		var prefix string
		switch d.Code {
		case eval.CodeUnknownOp:
			_, prefix, names = txMisspelt(f, *d)
		case eval.CodeUnresolved:
			m := unresolvedT.FindStringSubmatch(d.Message)
			if m == nil || slices.Contains(tNames(), m[1]) {
				continue
			}
			names, prefix = nearest(m[1], tNames()), "T."
		}
		if len(names) == 0 {
			continue
		}
		q := make([]string, len(names))
		for j, n := range names {
			q[j] = "'" + prefix + n + "'"
		}
		d.Message += "; did you mean " + strings.Join(q, " or ")
	}
}

// unknownTx and unknownTxAttr read eval/unknown-op's "'Tx.cta.expp' is
// not a tile primitive" and "unknown tile primitive `Tx.ctaa`".
var (
	unknownTx     = regexp.MustCompile(`^'(Tx\.(?:[a-z]+\.)?)([A-Za-z_][A-Za-z_0-9]*)' is not a tile primitive`)
	unknownTxAttr = regexp.MustCompile("^unknown tile primitive `Tx\\.([A-Za-z_][A-Za-z_0-9]*)`")
)

// identRE and assignRE find the module-level constants a declaration
// names: `ROWS, COLS = 4, 6` for `T.match_buffer(p, (ROWS, COLS), ...)`.
var (
	identRE  = regexp.MustCompile(`[A-Za-z_][A-Za-z_0-9]*`)
	assignRE = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z_0-9]*(?:\s*,\s*[A-Za-z_][A-Za-z_0-9]*)*)\s*=[^=\n][^\n]*$`)
)

// moduleAssigns returns assignRE's matches in the snapshot's file, found
// once per snapshot: a scan of the 3,000-line benchmark file takes 12 ms,
// and `tilels --lower` made one for each of its 36 fallback-only warnings
// (FixFirstResult), 450 ms of its 500.
func (s *Snapshot) moduleAssigns() [][]int {
	c := s.fixes
	if c == nil {
		return assignRE.FindAllSubmatchIndex(s.File.Src, -1)
	}
	c.assignsOnce.Do(func() { c.assigns = assignRE.FindAllSubmatchIndex(s.File.Src, -1) })
	return c.assigns
}

// constantLines returns the spans of the top-level assignment lines
// (assigns: assignRE's matches in f) of the names decls use, so that an
// extent written as a constant is changed where the constant is set.
func constantLines(f *source.File, assigns [][]int, decls []source.Span) []source.Span {
	used := map[string]bool{}
	for _, d := range decls {
		if d.Start < 0 || int(d.End) > len(f.Src) {
			continue
		}
		for _, id := range identRE.FindAllString(f.Text(d), -1) {
			used[id] = true
		}
	}
	var out []source.Span
	for _, m := range assigns {
		for _, n := range strings.Split(string(f.Src[m[2]:m[3]]), ",") {
			if used[strings.TrimSpace(n)] {
				out = append(out, source.Span{Start: source.Pos(m[0]), End: source.Pos(m[1])})
				break
			}
		}
	}
	return out
}
