package memory

import (
	"slices"

	"github.com/tilels/tilels/ir"
)

// Counted while loops. A persistent kernel walks its work with a while
// loop over an index that moves by a constant (rmsnorm.py: `while idx <
// 2048: ... idx = idx + 152`): its iteration count is known when the loop
// starts, and its iterations are often translations of each other, as a
// for loop's are (loops.go). countedOf recognises the form
//
//	while v < E:          (or v <= E)
//	    body              (no break or continue; nothing else sets v or E)
//	    v = v + c         (the body's last statement; c > 0)
//
// with E a constant or a variable, and the machine runs it as the serial
// for loop `for t in range(n): v = v0 + t * c; body` (n per lane from v0
// and E at the start), so that loops.go may skip its translated
// iterations, then leaves v = v0 + n * c. Nothing else changes: the loop
// is one nvcc does not unroll (its extent is a variable), it forgets the
// available loads at each iteration as the while loop does and not after
// the last one, and a shared store inside it forwards nothing (machine.
// trips counts it as a while loop). TestLoopDedup, which runs while loops
// as written when it turns skipping off, compares both on every kernel.

// counted is the for loop a counted while loop runs as.
type counted struct {
	v, base, trips *ir.Var // the index; its value at the start; n
	// reg is the index when it is a register element (v is nil then),
	// leave the store that sets it after the loop
	reg, leave *ir.Store
	index      *ir.Load // r[i]
	// extra are the body's other induction registers (countedReg)
	extra []induction
	bound ir.Expr // E
	le    bool    // v <= E (else v < E)
	step  int64   // c
	loop  *ir.For
}

// countedOf returns the counted form of s (nil: s is not one); cached per
// loop.
func (m *machine) countedOf(s *ir.While) *counted {
	if c, ok := m.whiles[s]; ok {
		return c
	}
	c := countedForm(s)
	if m.whiles == nil {
		m.whiles = map[*ir.While]*counted{}
	}
	m.whiles[s] = c
	if c != nil {
		if m.whileFors == nil {
			m.whileFors = map[*ir.For]*counted{}
		}
		m.whileFors[c.loop] = c
	}
	return c
}

func countedForm(s *ir.While) *counted {
	cond, ok := s.Cond.(*ir.Binary)
	if !ok || (cond.Op != ir.LT && cond.Op != ir.LE) || s.Body == nil || len(s.Body.Stmts) == 0 {
		return nil
	}
	v, ok := cond.A.(*ir.Var)
	if !ok {
		if r, ok := cond.A.(*ir.Load); ok {
			return countedReg(s, cond, r)
		}
		return nil
	}
	switch b := cond.B.(type) {
	case *ir.IntImm:
	case *ir.Var:
		if b == v {
			return nil
		}
	default:
		return nil
	}
	last, ok := s.Body.Stmts[len(s.Body.Stmts)-1].(*ir.Assign)
	if !ok || last.Var != v {
		return nil
	}
	inc, ok := last.Value.(*ir.Binary)
	if !ok || inc.Op != ir.Add {
		return nil
	}
	step, ok := ir.ConstInt(inc.B)
	if x, isVar := inc.A.(*ir.Var); !ok || !isVar || x != v || step <= 0 {
		return nil
	}
	bound, _ := cond.B.(*ir.Var)
	rest := &ir.Block{Stmts: s.Body.Stmts[:len(s.Body.Stmts)-1], Span: s.Body.Span}
	clean := true
	ir.WalkStmts(rest, func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Break, *ir.Continue:
			clean = false
		case *ir.Assign:
			if st.Var == v || st.Var == bound {
				clean = false
			}
		case *ir.Let:
			if st.Var == v || st.Var == bound {
				clean = false
			}
		case *ir.For:
			if st.Var == v || st.Var == bound {
				clean = false
			}
		}
	})
	if !clean {
		return nil
	}
	c := &counted{v: v, bound: cond.B, le: cond.Op == ir.LE, step: step,
		base:  &ir.Var{Name: v.Name + "_start", Type: v.Type, Span: v.Span},
		trips: &ir.Var{Name: v.Name + "_trips", Type: v.Type, Span: v.Span}}
	t := &ir.Var{Name: v.Name + "_iter", Type: v.Type, Span: v.Span}
	start := &ir.Assign{Var: v, Span: last.Span, Value: &ir.Binary{Op: ir.Add, A: c.base, Span: last.Span,
		B: &ir.Binary{Op: ir.Mul, A: t, B: &ir.IntImm{Value: step, Type: v.Type, Span: last.Span}, Span: last.Span}}}
	body := &ir.Block{Stmts: append([]ir.Stmt{start}, rest.Stmts...), Span: s.Body.Span}
	c.loop = &ir.For{Var: t, Min: &ir.IntImm{Value: 0, Type: v.Type, Span: s.Span}, Extent: c.trips, Kind: ir.Serial, Body: body, Span: s.Span}
	return c
}

// countedReg is countedForm for an index held in a register element
// (the persistent schedulers of nvfp4_gemm.py and fp8_blockwise_gemm.py:
// `while linear_idx[0] < 4096: ...; linear_idx[0] = linear_idx[0] + 74;
// the next tile's coordinates from linear_idx[0]`):
//
//	while r[i] < E:       (or <=; i constant, E a constant or a variable)
//	    body              (no break or continue; one statement of it,
//	                       at its top level, is r[i] = r[i] + c, c > 0;
//	                       nothing else writes r's storage, takes its
//	                       address or sets E)
//
// runs as `for t in range(n): body` with the increment replaced by
// r[i] = r0 + (t + 1) * c, the value it computes in iteration t, stated
// as a function of t: the statements after it in an iteration that
// follows skipped ones (loops.go, which leaves registers the skipped
// iterations moved unknown) read it known. After the loop the element is
// set to r0 + n * c, what the last iteration left.
func countedReg(s *ir.While, cond *ir.Binary, r *ir.Load) *counted {
	if r.Buf == nil || r.Buf.Scope != "local" || !isIntType(r.Buf.Dtype) {
		return nil
	}
	for _, x := range r.Indices {
		if _, ok := x.(*ir.IntImm); !ok {
			return nil
		}
	}
	var bound *ir.Var
	switch b := cond.B.(type) {
	case *ir.IntImm:
	case *ir.Var:
		bound = b
	default:
		return nil
	}
	root := rootOf(r.Buf)
	var inc *ir.Store
	var step int64
	for _, st := range s.Body.Stmts {
		x, ok := st.(*ir.Store)
		if !ok || rootOf(x.Buf) != root {
			continue
		}
		l, c, ok := incrementOf(x)
		if inc != nil || !ok || !sameLoad(l, r) || c <= 0 {
			return nil
		}
		inc, step = x, c
	}
	if inc == nil || !onlyStore(s.Body, root, inc) {
		return nil
	}
	clean := true
	ir.WalkStmts(s.Body, func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Break, *ir.Continue:
			clean = false
		case *ir.Assign:
			clean = clean && (bound == nil || st.Var != bound)
		case *ir.Let:
			clean = clean && (bound == nil || st.Var != bound)
		case *ir.For:
			clean = clean && (bound == nil || st.Var != bound)
		}
	})
	if !clean {
		return nil
	}
	typ := r.Buf.Dtype
	sp := inc.Span
	c := &counted{index: r, bound: cond.B, le: cond.Op == ir.LE, step: step,
		base:  &ir.Var{Name: r.Buf.Name + "_start", Type: typ, Span: sp},
		trips: &ir.Var{Name: r.Buf.Name + "_trips", Type: typ, Span: sp}}
	t := &ir.Var{Name: r.Buf.Name + "_iter", Type: typ, Span: sp}
	c.reg = inductionStore(r, c.base, step, &ir.Binary{Op: ir.Add, A: t, B: &ir.IntImm{Value: 1, Type: typ, Span: sp}, Span: sp})
	c.leave = inductionStore(r, c.base, step, c.trips)
	stmts := make([]ir.Stmt, len(s.Body.Stmts))
	roots := []*ir.Buffer{root}
	for i, st := range s.Body.Stmts {
		stmts[i] = st
		if st == inc {
			stmts[i] = c.reg
			continue
		}
		// another register the body moves by a constant once an
		// iteration (fp8_blockwise_gemm.py's tile_count[0] += 1, whose
		// value picks the epilogue's stage)
		x, ok := st.(*ir.Store)
		if !ok {
			continue
		}
		l, k, ok := incrementOf(x)
		if !ok || k == 0 || slices.Contains(roots, rootOf(x.Buf)) || !onlyStore(s.Body, rootOf(x.Buf), x) {
			continue
		}
		roots = append(roots, rootOf(x.Buf))
		in := induction{load: l, step: k, base: &ir.Var{Name: x.Buf.Name + "_start", Type: x.Buf.Dtype, Span: x.Span}}
		in.store = inductionStore(l, in.base, k, &ir.Binary{Op: ir.Add, A: t, B: &ir.IntImm{Value: 1, Type: typ, Span: sp}, Span: sp})
		in.leave = inductionStore(l, in.base, k, c.trips)
		stmts[i] = in.store
		c.extra = append(c.extra, in)
	}
	body := &ir.Block{Stmts: stmts, Span: s.Body.Span}
	c.loop = &ir.For{Var: t, Min: &ir.IntImm{Value: 0, Type: typ, Span: s.Span}, Extent: c.trips, Kind: ir.Serial, Body: body, Span: s.Span}
	return c
}

// induction is a register element a counted while loop's body moves by
// a constant once an iteration: in iteration t its increment stores
// base + (t + 1) * step, what it computes, stated as a function of t, so
// that loops.go's proof sees the element move by step per iteration
// (loopProofOf leaves it out of the registers the body writes), and
// inductions sets it after skipped iterations.
type induction struct {
	load         *ir.Load // the element
	step         int64
	base         *ir.Var // its value when the loop starts
	store, leave *ir.Store
}

// incrementOf reports whether x is r = r + c, r a register element at
// constant indices of an integer buffer, and returns r and c.
func incrementOf(x *ir.Store) (*ir.Load, int64, bool) {
	if x.Buf == nil || x.Buf.Scope != "local" || !isIntType(x.Buf.Dtype) {
		return nil, 0, false
	}
	for _, i := range x.Indices {
		if _, ok := i.(*ir.IntImm); !ok {
			return nil, 0, false
		}
	}
	add, ok := x.Value.(*ir.Binary)
	if !ok || add.Op != ir.Add {
		return nil, 0, false
	}
	l, ok := add.A.(*ir.Load)
	if !ok || !sameElem(x.Buf, x.Indices, l) {
		return nil, 0, false
	}
	c, ok := ir.ConstInt(add.B)
	return l, c, ok
}

// onlyStore reports whether inc is the only write of root's storage in
// body: no other store, no address taken, no view declared.
func onlyStore(body *ir.Block, root *ir.Buffer, inc *ir.Store) bool {
	clean := true
	ir.WalkStmts(body, func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Store:
			if st != inc && rootOf(st.Buf) == root {
				clean = false
			}
		case *ir.Decl:
			if st.Buf != nil && rootOf(st.Buf) == root {
				clean = false // a view of the index's storage
			}
		}
		forExprs(st, func(e ir.Expr) {
			walkExpr(e, func(e ir.Expr) {
				switch e := e.(type) {
				case *ir.AddressOf:
					clean = clean && rootOf(e.Buf) != root
				case *ir.BufferData:
					clean = clean && rootOf(e.Buf) != root
				}
			})
		})
	})
	return clean
}

// inductionStore is r = base + k * step.
func inductionStore(r *ir.Load, base *ir.Var, step int64, k ir.Expr) *ir.Store {
	sp := base.Span
	return &ir.Store{Buf: r.Buf, Indices: r.Indices, Span: sp, Value: &ir.Binary{Op: ir.Add, A: base, Span: sp,
		B: &ir.Binary{Op: ir.Mul, A: k, B: &ir.IntImm{Value: step, Type: r.Buf.Dtype, Span: sp}, Span: sp}}}
}

// inductions sets the induction registers of counted loop c to what they
// hold after iteration it (base + (it + 1) * step): the iterations
// loops.go skipped before it left them as the last one compared did.
func (m *machine) inductions(c *counted, it int64) {
	if c.index == nil {
		return // (a variable index: set at the top of each iteration)
	}
	set := func(r *ir.Load, base *ir.Var, step int64) {
		m.localStore(inductionStore(r, base, step, &ir.IntImm{Value: it + 1, Type: r.Buf.Dtype, Span: base.Span}))
	}
	set(c.index, c.base, c.step)
	for _, in := range c.extra {
		set(in.load, in.base, in.step)
	}
}

// sameElem reports whether buffer b at constant indices idx is r's
// element.
func sameElem(b *ir.Buffer, idx []ir.Expr, r *ir.Load) bool {
	if b != r.Buf || len(idx) != len(r.Indices) {
		return false
	}
	for i, x := range idx {
		a, ok1 := x.(*ir.IntImm)
		c, ok2 := r.Indices[i].(*ir.IntImm)
		if !ok1 || !ok2 || a.Value != c.Value {
			return false
		}
	}
	return true
}

// sameLoad reports whether e loads r's element.
func sameLoad(e ir.Expr, r *ir.Load) bool {
	l, ok := e.(*ir.Load)
	return ok && sameElem(l.Buf, l.Indices, r)
}

// oneBlockRule enables regLoop (tests turn it off to compare).
var oneBlockRule = true

// regLoop reports whether s is the counted form of a while loop over a
// register element whose body holds a loop. Its iterations are a
// persistent kernel's tiles, each with loops over its K blocks whose
// iterations are skipped in turn (loops.go), except while the tile loop
// records its iterations to compare them, which it does until its
// pipeline's stages come back to where they started: after 3 tiles of
// 40 K blocks in 6 stages, fp8_blockwise_gemm.py's fifth case executed
// every K block of 13 tiles a warp (45,414 statements against 17,766 as
// a while loop). So forLoop executes such a loop's first tile unrecorded
// and measures it, and afterIteration stops recording when comparing
// two blocks of recorded tiles would cost more than executing the rest
// as the first.
func (m *machine) regLoop(s *ir.For) bool {
	c := m.whileFors[s]
	if !oneBlockRule || c == nil || c.index == nil {
		return false
	}
	inner := false
	ir.WalkStmts(s.Body, func(x ir.Stmt) {
		switch x.(type) {
		case *ir.For, *ir.While:
			inner = true
		}
	})
	return inner
}

// runCounted runs a while loop as its counted form c: false (nothing
// run) when the index or the bound is not known in every active lane, or
// a lane would run more than maxWhile iterations.
func (m *machine) runCounted(c *counted) bool {
	in := m.mask
	var v0 lanes
	if c.index != nil {
		var why string
		if v0, why = m.eval(c.index); why != "" {
			return false
		}
	} else {
		vb := m.vars.get(c.v)
		if vb == nil || vb.why != "" {
			return false
		}
		v0 = vb.v
	}
	e, why := m.eval(c.bound)
	if why != "" {
		return false
	}
	var start, trips lanes
	for l := range 32 {
		if in&(1<<l) == 0 {
			continue
		}
		lo, hi := v0[l], e[l]
		if c.le {
			hi++
		}
		n := int64(0)
		if hi > lo {
			n = (hi - lo + c.step - 1) / c.step
		}
		if n > maxWhile {
			return false
		}
		start[l], trips[l] = lo, n
	}
	for _, in := range c.extra {
		// (a start the machine does not know: the increments compute
		// nothing known either)
		v, why := m.eval(in.load)
		b := m.vars.get(in.base)
		if b == nil {
			b = m.newBinding()
			m.vars.set(in.base, b)
		}
		b.v, b.why, b.uni = v, why, uniform(&v)
	}
	for _, x := range []struct {
		v   *ir.Var
		val *lanes
	}{{c.base, &start}, {c.trips, &trips}} {
		b := m.vars.get(x.v)
		if b == nil {
			b = m.newBinding()
			m.vars.set(x.v, b)
		}
		b.v, b.why, b.uni = *x.val, "", uniform(x.val)
	}
	m.forLoop(c.loop)
	if c.leave != nil {
		// the elements the while loop leaves: r0 + n * c
		m.mask = in
		m.localStore(c.leave)
		for _, x := range c.extra {
			m.localStore(x.leave)
		}
		return true
	}
	// the index the while loop leaves: v0 + n * c in every lane it ran
	vb := m.vars.get(c.v)
	for l := range 32 {
		if in&(1<<l) != 0 {
			vb.v[l] = start[l] + trips[l]*c.step
		}
	}
	vb.why, vb.uni = "", uniform(&vb.v)
	return true
}

// A persistent kernel's CTAs start their while loop at their own tile
// (nvfp4_gemm.py: linear_idx[0] = cta_idx // 2, then `while
// linear_idx[0] < 32: ...; linear_idx[0] += 32`), so the loop's condition
// moves from CTA to CTA, and the CTA proof (ctas.go) failed on it. Yet
// each CTA runs it the same number of times when the trip count
// ceil((E - r0) / c) is the same over the range of r0 across CTAs: one
// tile per cluster there. uniformTrips proves that for a counted while
// loop over a register element (countedReg) whose every other store is
// one, at the kernel's top level before the loop, of a value whose range
// the proof bounds: at the loop's entry the element holds that value, or
// (after another counted loop over it with the same bound, in the same
// thread) one at or past the bound, which runs no iteration in any CTA.

// uniformTrips reports whether counted while loop s runs as many
// iterations in every CTA (and thread).
func (p *shiftProof) uniformTrips(s *ir.While) bool {
	c := p.m.countedOf(s)
	if c == nil || c.index == nil {
		return false
	}
	b, ok := c.bound.(*ir.IntImm)
	if !ok {
		return false
	}
	v0 := p.m.regInit(c.index, b.Value, c.le)
	if v0 == nil {
		return false
	}
	r := p.rangeOf(v0, 0)
	if !r.ok {
		return false
	}
	hi := b.Value
	if c.le {
		hi++
	}
	trips := func(x int64) int64 {
		if x >= hi {
			return 0
		}
		return (hi - x + c.step - 1) / c.step
	}
	return trips(r.lo) == trips(r.hi) // (trips does not increase with x)
}

// regInit returns the value the register element r holds at the entry
// of every counted while loop over it with bound e (le: <=) that has not
// run another: its one store at the kernel's top level, before the
// loops, when every other store of its storage is a counted loop's
// increment of it under the same condition (nil: none such).
func (m *machine) regInit(r *ir.Load, e int64, le bool) ir.Expr {
	root := rootOf(r.Buf)
	if v, ok := m.regInits[root]; ok || m.fn == nil {
		return v
	}
	var init ir.Expr
	ok := true
	incs := map[*ir.Store]bool{}
	ir.WalkStmts(m.fn.Body, func(st ir.Stmt) {
		w, isWhile := st.(*ir.While)
		if !isWhile {
			return
		}
		c := m.countedOf(w)
		if c == nil || c.index == nil || rootOf(c.index.Buf) != root {
			return
		}
		b, isConst := c.bound.(*ir.IntImm)
		if !isConst || b.Value != e || c.le != le || !sameLoad(c.index, r) {
			ok = false
			return
		}
		for _, x := range w.Body.Stmts {
			if s, isStore := x.(*ir.Store); isStore && rootOf(s.Buf) == root {
				incs[s] = true
			}
		}
	})
	for i, st := range m.fn.Body.Stmts {
		if s, isStore := st.(*ir.Store); isStore && rootOf(s.Buf) == root && sameElem(s.Buf, s.Indices, r) && init == nil {
			init = s.Value
			// every loop over it comes after
			ir.WalkStmts(&ir.Block{Stmts: m.fn.Body.Stmts[:i]}, func(x ir.Stmt) {
				if _, isWhile := x.(*ir.While); isWhile {
					ok = false
				}
			})
			incs[s] = true
		}
	}
	ir.WalkStmts(m.fn.Body, func(st ir.Stmt) {
		if s, isStore := st.(*ir.Store); isStore && rootOf(s.Buf) == root && !incs[s] {
			ok = false
		}
		forExprs(st, func(x ir.Expr) {
			walkExpr(x, func(x ir.Expr) {
				switch x := x.(type) {
				case *ir.AddressOf:
					ok = ok && rootOf(x.Buf) != root
				case *ir.BufferData:
					ok = ok && rootOf(x.Buf) != root
				}
			})
		})
		if d, isDecl := st.(*ir.Decl); isDecl && d.Buf != nil && d.Buf != root && rootOf(d.Buf) == root {
			ok = false
		}
	})
	if !ok {
		init = nil
	}
	if m.regInits == nil {
		m.regInits = map[*ir.Buffer]ir.Expr{}
	}
	m.regInits[root] = init
	return init
}
