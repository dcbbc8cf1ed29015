package memory

import "github.com/tilels/tilels/ir"

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
	bound          ir.Expr // E
	le             bool    // v <= E (else v < E)
	step           int64   // c
	loop           *ir.For
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
			m.whileFors = map[*ir.For]bool{}
		}
		m.whileFors[c.loop] = true
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

// runCounted runs a while loop as its counted form c: false (nothing
// run) when the index or the bound is not known in every active lane, or
// a lane would run more than maxWhile iterations.
func (m *machine) runCounted(c *counted) bool {
	in := m.mask
	vb := m.vars.get(c.v)
	if vb == nil || vb.why != "" {
		return false
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
		v0, hi := vb.v[l], e[l]
		if c.le {
			hi++
		}
		n := int64(0)
		if hi > v0 {
			n = (hi - v0 + c.step - 1) / c.step
		}
		if n > maxWhile {
			return false
		}
		start[l], trips[l] = v0, n
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
	// the index the while loop leaves: v0 + n * c in every lane it ran
	vb = m.vars.get(c.v)
	for l := range 32 {
		if in&(1<<l) != 0 {
			vb.v[l] = start[l] + trips[l]*c.step
		}
	}
	vb.why, vb.uni = "", uniform(&vb.v)
	return true
}
