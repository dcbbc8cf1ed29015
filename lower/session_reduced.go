package lower

import (
	"slices"
	"sort"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// maxAgain bounds the kernels one update analyses again besides the
// module-level code: past it (and past half the kernels) the whole file
// costs about the same.
const maxAgain = 64

// reanalyse analyses again, in a reduced file (see Session), the
// top-level kernels of the segments again (indexes in u.segs) and, when
// module is set, the module-level code, whose records and diagnostics then
// replace the previous ones. With changed (the names a module-level edit
// binds), the kernels that may read them are analysed too
// (session_deps.go); so are the kernels the module-level code names.
// The other kernels keep their results, moved by the edit.
func (u *incr) reanalyse(again []int, module bool, changed map[string]bool) *Snapshot {
	prev, segs, cur := u.prev, u.segs, u.f.Src
	A := make(map[int]bool, len(again))
	for _, i := range again {
		A[i] = true
	}
	nk := 0 // kernel segments
	for i, sg := range segs {
		if !sg.kernel() {
			continue
		}
		nk++
		if A[i] {
			continue
		}
		// A kernel whose spans straddle the edit cannot be moved.
		for _, v := range u.oldViews(i) {
			if u.side(v) == 0 {
				A[i] = true
			}
		}
	}
	if module {
		if !u.moduleKernels(A, changed) {
			return nil
		}
	}
	if len(A) > maxAgain && 2*len(A) > nk {
		return nil
	}
	work := 0
	for i := range A {
		work += len(u.oldViews(i))
	}
	u.s.previewFirst(u.f, work) // session_preview.go

	// The reduced file: every segment's text, but the kernels not in A
	// are left out or become stubs (keeping a comment block at their end
	// that may hold a directive for the def below).
	var buf []byte
	var pieces []piece
	stmtStarts := make([]source.Pos, 0, len(segs))
	stmtOf := map[int]int{}        // segment -> statement index (A segments)
	pieceOf := map[int]int{}       // segment -> piece (A segments)
	tails := map[int]source.Span{} // A segment -> its directive block (reduced coordinates)
	// keepTail copies the comment block at the end of a left-out or
	// stubbed kernel (a directive for the def below may be there); false
	// when a directive comment ends a code line (it binds the def below
	// when only comments follow it) and that def is analysed.
	keepTail := func(i int, real source.Span) bool {
		t := commentTail(cur, real)
		if A[i+1] {
			if mentionsTilels(cur[real.Start:t]) {
				return false
			}
			tails[i+1] = source.Span{Start: source.Pos(len(buf)), End: source.Pos(len(buf)) + real.End - t}
		}
		if t < real.End {
			pieces = append(pieces, piece{syn: source.Pos(len(buf)), real: t, n: real.End - t})
			buf = append(buf, cur[t:real.End]...)
		}
		return true
	}
	for i, sg := range segs {
		real := sg.span
		cut := sg.kernel() && !A[i]
		if cut && !u.needStub(i) {
			// Left out: 2,000 stubs cost 2-3 ms of parsing and evaluating
			// per keystroke in a 30,000-line file (0.13 ms without).
			if sg.directive && !keepTail(i, real) {
				return nil
			}
			continue
		}
		if sg.stmt {
			if A[i] {
				stmtOf[i] = len(stmtStarts)
			}
			stmtStarts = append(stmtStarts, source.Pos(len(buf)))
		}
		if cut {
			pieces = append(pieces, piece{syn: source.Pos(len(buf)), real: real.Start, n: source.Pos(len(cutStub)), stub: true})
			buf = append(buf, cutStub...)
			if sg.directive && !keepTail(i, real) {
				return nil
			}
			continue
		}
		if A[i] {
			pieceOf[i] = len(pieces)
		}
		if A[i+1] && mentionsTilels(cur[real.Start:real.End]) {
			t := commentTail(cur, real)
			if mentionsTilels(cur[real.Start:t]) {
				return nil // a directive comment ending a code line binds the def below too
			}
			tails[i+1] = source.Span{Start: source.Pos(len(buf)) + t - real.Start, End: source.Pos(len(buf)) + real.End - real.Start}
		}
		pieces = append(pieces, piece{syn: source.Pos(len(buf)), real: real.Start, n: real.End - real.Start})
		buf = append(buf, cur[real.Start:real.End]...)
	}
	// The reduced file is analysed under the whole file's release (what
	// the file shows may lie in a stubbed kernel).
	opts := u.s.opts
	opts.chosen = &u.prev.Reference
	opts.cancel = u.s.cancel
	res := Analyze(source.NewFile(u.f.Name, buf), opts)
	if res.cancelled {
		return nil // Session.Analyze returns the context's error
	}

	// The reduced parse must have the real one's statements (each segment
	// starts at a seam, or follows one in the same text) and, in the
	// region, its syntax errors.
	body := res.Syntax.Body
	if len(body) != len(stmtStarts) {
		return nil
	}
	for i, st := range body {
		if st.Span().Start != stmtStarts[i] {
			return nil
		}
	}
	// (Syntax errors in a stubbed kernel are not in the reduced file.)
	stubbed := func(p source.Pos) bool {
		k := segAt(segs, p)
		return k >= 0 && segs[k].kernel() && !A[k]
	}
	var regionSyntax, want []diag.Diagnostic
	for _, d := range res.Diags {
		if strings.HasPrefix(d.Code, "syntax/") {
			if m := mapDiag(d, pieces); m.Span.Start >= u.r.Start && m.Span.Start < u.r.End && !stubbed(m.Span.Start) {
				regionSyntax = append(regionSyntax, m)
			}
		}
	}
	for _, d := range u.r.Diags {
		if !stubbed(d.Span.Start) {
			want = append(want, d)
		}
	}
	if len(regionSyntax) != len(want) {
		return nil
	}
	for i, d := range regionSyntax {
		w := want[i]
		if d.Span != w.Span || d.Code != w.Code || d.Message != w.Message {
			return nil
		}
	}
	// Budgets are per file too: with the kernels left out, a reduced file
	// may stay under one the whole file runs out of.
	if diagsIn(res.Diags, eval.CodeBudget, eval.CodeTooLarge) {
		return nil
	}

	// The records of each A kernel: adjacent kernels (one per case) or
	// one partial record; the others are module-level records.
	defs := map[*syntax.FunctionDef]int{} // A def -> segment
	for i := range A {
		fd, ok := body[stmtOf[i]].(*syntax.FunctionDef)
		if !ok || fd.Name == nil || !kernelDecorated(fd) {
			return nil
		}
		if vs := u.oldViews(i); len(vs) > 0 && vs[0].Kernel.Name != fd.Name.Id {
			return nil
		}
		defs[fd] = i
	}
	evals := evalKernels(res)
	type recs struct {
		evals   []*eval.Kernel
		recs    []*Kernel
		lo      int
		partial bool
	}
	got := map[int]*recs{}
	var ctxK, ctxP []int // module-level records (indexes in res)
	pieceAt := func(p source.Pos) int {
		for k, pc := range pieces {
			if p >= pc.syn && p < pc.syn+pc.n {
				return k
			}
		}
		return -1
	}
	inA := func(p source.Pos) bool {
		k := pieceAt(p)
		for i := range A {
			if pieceOf[i] == k {
				return true
			}
		}
		return false
	}
	for i, ek := range evals {
		if ek == nil {
			return nil
		}
		seg, mine := defs[ek.Def]
		if !mine {
			if inA(res.Kernels[i].Span.Start) {
				return nil // a def nested in an A kernel's text
			}
			ctxK = append(ctxK, i)
			continue
		}
		g := got[seg]
		if g == nil {
			g = &recs{lo: i}
			got[seg] = g
		} else if g.lo+len(g.recs) != i {
			return nil // not adjacent
		}
		g.evals, g.recs = append(g.evals, ek), append(g.recs, res.Kernels[i])
	}
	for i, ek := range res.Program.Partial {
		seg, mine := defs[ek.Def]
		if !mine {
			if inA(res.Partial[i].Span.Start) {
				return nil
			}
			ctxP = append(ctxP, i)
			continue
		}
		if got[seg] != nil {
			return nil
		}
		got[seg] = &recs{evals: []*eval.Kernel{ek}, recs: []*Kernel{res.Partial[i]}, partial: true}
	}
	if len(got) != len(A) {
		return nil
	}
	if !module {
		// The module-level records are the previous ones.
		n, np := 0, 0
		for _, v := range prev.Kernels {
			if !v.TopLevel {
				n++
			}
		}
		for _, v := range prev.Partial {
			if !v.TopLevel {
				np++
			}
		}
		if len(ctxK) != n || len(ctxP) != np {
			return nil
		}
	}

	u.s.gen++
	gen := u.s.gen
	snap := &Snapshot{File: u.f, seams: u.seams, fixes: &fixCache{}, Imports: unionImports(u.prev.Imports, res.Imports),
		Reference: u.prev.Reference}
	if module {
		snap.Reanalysed = len(ctxK) + len(ctxP)
	}
	var kernels, partial []*KernelView
	owned := map[diagKey]bool{}
	syntaxN := map[int]int{}
	for i, g := range got {
		kp := pieces[pieceOf[i]]
		whole := source.Span{Start: kp.syn, End: kp.syn + kp.n}
		kSyn := whole
		tail, hasTail := tails[i]
		if !hasTail {
			tail = source.Span{Start: -1, End: -1}
		}
		snap.Reanalysed += len(g.recs)
		nvs := make([]*KernelView, len(g.recs))
		for k, rec := range g.recs {
			ek := g.evals[k]
			nvs[k] = newView(rec, ek.Buffers, ek.Layouts)
			nvs[k].Shift, nvs[k].Seg, nvs[k].TopLevel, nvs[k].gen = kp.real-kp.syn, segs[i].span, true, gen
		}
		nv := nvs[0]
		// Its own directive block belongs to the def below it.
		if real := segs[i].span; mentionsTilels(cur[real.Start:real.End]) {
			kSyn.End = kp.syn + commentTail(cur, real) - real.Start
		}
		for _, d := range res.Diags {
			if kSyn.Contains(d.Span.Start) || tail.Contains(d.Span.Start) {
				nv.Diags = append(nv.Diags, mapDiag(d, pieces))
				owned[keyOf(d)] = true
				if strings.HasPrefix(d.Code, "syntax/") {
					syntaxN[i]++
				}
			}
		}
		for _, ek := range g.evals {
			for _, d := range ek.Diags {
				if !whole.Contains(d.Span.Start) && !tail.Contains(d.Span.Start) && !owned[keyOf(d)] {
					if len(g.evals) > 1 {
						return nil // see snapshotOf: merged across the cases
					}
					nv.Diags = append(nv.Diags, mapDiag(d, pieces))
					owned[keyOf(d)] = true
				}
			}
		}
		diag.Sort(nv.Diags)
		if g.partial {
			partial = append(partial, nvs...)
		} else {
			kernels = append(kernels, nvs...)
		}
	}
	// The other kernels' records, moved by the edit (and, when the
	// module-level code was not analysed again, the module-level ones).
	for _, l := range []struct {
		views []*KernelView
		out   *[]*KernelView
	}{{prev.Kernels, &kernels}, {prev.Partial, &partial}} {
		for _, v := range l.views {
			if v.TopLevel {
				if i := u.newSeg(v); i >= 0 && !A[i] {
					*l.out = append(*l.out, u.moveView(v, segs[i].span))
				}
				continue
			}
			if !module {
				if u.side(v) == 0 {
					return nil
				}
				*l.out = append(*l.out, u.moveView(v, u.e.span(v.Seg)))
			}
		}
	}
	// Module-level records and diagnostics.
	if module {
		for _, i := range ctxK {
			v := u.ctxView(res.Kernels[i], evals[i], pieces, pieceAt, gen)
			if v == nil {
				return nil
			}
			kernels = append(kernels, v)
		}
		for _, i := range ctxP {
			v := u.ctxView(res.Partial[i], res.Program.Partial[i], pieces, pieceAt, gen)
			if v == nil {
				return nil
			}
			partial = append(partial, v)
		}
		for _, d := range res.Diags {
			if !owned[keyOf(d)] {
				snap.ctxDiags = append(snap.ctxDiags, mapDiag(d, pieces))
			}
		}
	} else {
		snap.ctxDiags = u.e.diags(prev.ctxDiags)
	}
	byPos := func(a, b *KernelView) int {
		return int(a.ToFile(a.Kernel.Span).Start) - int(b.ToFile(b.Kernel.Span).Start)
	}
	slices.SortStableFunc(kernels, byPos)
	slices.SortStableFunc(partial, byPos)
	snap.Kernels, snap.Partial = kernels, partial

	// The segments: the records of each top-level kernel def.
	snap.segs = segs
	for i := range segs {
		segs[i].lo, segs[i].hi = -1, -1
		if A[i] {
			segs[i].syntaxN = int32(syntaxN[i])
		}
	}
	for _, l := range []struct {
		views   []*KernelView
		partial bool
	}{{snap.Kernels, false}, {snap.Partial, true}} {
		for i, v := range l.views {
			if !v.TopLevel {
				continue
			}
			k := segAt(segs, v.Seg.Start)
			if k < 0 {
				return nil
			}
			sg := &segs[k]
			if sg.lo < 0 {
				sg.lo, sg.partial = int32(i), l.partial
			}
			sg.hi = int32(i + 1)
		}
	}
	// Every kernel segment still has records.
	for i := range A {
		if segs[i].lo < 0 {
			return nil
		}
	}

	all := append([]diag.Diagnostic(nil), snap.ctxDiags...)
	for _, v := range snap.Kernels {
		all = append(all, v.Diags...)
	}
	for _, v := range snap.Partial {
		all = append(all, v.Diags...)
	}
	diag.Sort(all)
	snap.Diags = dedup(all)
	if module {
		snap.idx = moduleIndex(prev.idx, snap, cur, u.newEffectful)
	} else {
		snap.idx = prev.idx
	}
	// Each reduced analysis retains its reduced file's text.
	gens := map[uint32]bool{}
	for _, views := range [][]*KernelView{snap.Kernels, snap.Partial} {
		for _, v := range views {
			if v.gen != 0 {
				gens[v.gen] = true
			}
		}
	}
	if len(gens) > maxReduced {
		return nil
	}
	return snap
}

// needStub reports whether the kernel segment segs[i], left out of a
// reduced file, must leave a stub: when its start is not a seam, when a
// bracket left open before it closes there (its first word decided
// where), when an error is there (the statement before may have reported
// it at its first token), or when directive lines above it are kept (they
// must not bind the next def instead). Otherwise the text before and
// after it parse and evaluate the same without it.
func (u *incr) needStub(i int) bool {
	p := u.segs[i].span.Start
	k := sort.Search(len(u.seams), func(k int) bool { return u.seams[k].Pos >= p })
	if k == len(u.seams) || u.seams[k].Pos != p || u.seams[k].ErrAtPos || k > 0 && u.seams[k-1].UnclosedToNext {
		return true
	}
	if i > 0 {
		b := u.segs[i-1]
		return b.directive || !b.kernel() && mentionsTilels(u.f.Src[b.span.Start:b.span.End])
	}
	return false
}

// ctxView makes the view of a module-level record of a reduced analysis.
func (u *incr) ctxView(rec *Kernel, ek *eval.Kernel, pieces []piece, pieceAt func(source.Pos) int, gen uint32) *KernelView {
	k := pieceAt(rec.Span.Start)
	if k < 0 || pieces[k].stub {
		return nil
	}
	v := newView(rec, ek.Buffers, ek.Layouts)
	v.Shift, v.gen = pieces[k].real-pieces[k].syn, gen
	v.Seg = v.ToFile(rec.Span)
	return v
}

// oldViews returns the previous records of the kernel segment u.segs[i]
// (nil for a segment of the region that is not the previous one's).
func (u *incr) oldViews(i int) []*KernelView {
	oi := u.oldSeg(i)
	if oi < 0 || !u.prev.segs[oi].kernel() {
		return nil
	}
	return u.prev.views(u.prev.segs[oi])
}

// oldSeg maps a segment index of u.segs to the previous one (-1 for a
// segment of a region that does not correspond one to one).
func (u *incr) oldSeg(i int) int {
	switch {
	case i < u.j0:
		return i
	case i >= u.j0+u.rs:
		return i - u.rs + u.j1 - u.j0
	case u.rs == u.j1-u.j0:
		return i
	}
	return -1
}

// newSeg returns the index in u.segs of a previous top-level view's
// segment (-1 when its segment is in a region that does not correspond).
func (u *incr) newSeg(v *KernelView) int {
	oi := segAt(u.prev.segs, v.Seg.Start)
	switch {
	case oi < 0:
		return -1
	case oi < u.j0:
		return oi
	case oi >= u.j1:
		return oi - (u.j1 - u.j0) + u.rs
	case u.rs == u.j1-u.j0:
		return oi
	}
	return -1
}

// moveView returns v moved by the edit (it lies on one side of it), with
// the segment seg.
func (u *incr) moveView(v *KernelView, seg source.Span) *KernelView {
	side := u.side(v)
	if side < 0 && seg == v.Seg {
		return v
	}
	mv := *v
	if side > 0 {
		mv.Shift += u.e.delta
	}
	mv.Seg = seg
	mv.Diags = u.e.diags(v.Diags)
	return &mv
}

// unionImports returns a's paths, then b's not in a.
func unionImports(a, b []string) []string {
	out := slices.Clone(a)
	for _, p := range b {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
