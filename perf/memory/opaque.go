package memory

import "github.com/tilels/tilels/ir"

// A branch on a floating-point value (flash_attention4.py's softmax:
// `if acc_scale_ >= -rescale_threshold:` over a row maximum read from
// tensor memory) is one the machine never executes: it does not know
// floating-point values, so it skips both arms in every warp, CTA and
// iteration alike, and taints what they write (taint.go). The shift
// proofs (warps.go) failed at such a branch (its condition moves by no
// shift they can state), and with them the skip of every iteration of
// the loop around it: the softmax loop of flash_attention4.py executed
// each of its 8 to 64 iterations, 4,000,000 steps in four of its cases.
// The proofs now follow what the machine does: the condition's own
// accesses are proven, the arms are not (no warp executes them), and
// what the arms write is set as the machine leaves it, a runtime value,
// the same unknown everywhere.

// branchWhy is why the code under a branch on a floating-point value is
// not executed.
const branchWhy = "a branch on a floating-point value is decided at run time"

// neverKnown reports whether the machine's evaluation of e fails in
// every lane, whatever the variables hold: e combines, by arithmetic or
// comparison, a floating-point constant or a conversion to a
// floating-point type (exec.go's evalTo and evalU give no value for
// either, and a binary operation none when an operand has none).
func neverKnown(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.FloatImm:
		return true
	case *ir.Cast:
		return e.To.IsFloat() || neverKnown(e.X)
	case *ir.Binary:
		return neverKnown(e.A) || neverKnown(e.B)
	case *ir.Not:
		return neverKnown(e.X)
	case *ir.Neg:
		return neverKnown(e.X)
	}
	return false
}

// neverKnownWith is neverKnown, where a variable of opaque (opaqueLets)
// is never known as well.
func neverKnownWith(e ir.Expr, opaque map[*ir.Var]bool) bool {
	switch e := e.(type) {
	case *ir.Var:
		return opaque[e]
	case *ir.Cast:
		return e.To.IsFloat() || neverKnownWith(e.X, opaque)
	case *ir.Binary:
		return neverKnownWith(e.A, opaque) || neverKnownWith(e.B, opaque)
	case *ir.Not:
		return neverKnownWith(e.X, opaque)
	case *ir.Neg:
		return neverKnownWith(e.X, opaque)
	}
	return neverKnown(e)
}

// A condition may read such a value through a let: flash_attention4.py's
// epilogue binds `acc_O_row_is_zero_or_nan: T.let = tvm.tirx.any(row_sum[0]
// == 0.0, row_sum[0] != row_sum[0])` and selects on it. The select's
// condition then made row_sum a control register (dataregs.go), and
// through the sums the softmax scores, the exponentials' temporaries and
// every register of the softmax's unrolled loops: their 1,700 iterations
// a causal case were executed statement by statement instead of passed
// over (inert.go), half of each causal case's analysis.

// opaqueLets returns the variables of fn that one immutable let binds
// to a neverKnown value (through the opaque variables bound before it)
// and that nothing else binds or assigns: the machine's evaluation of
// such a variable fails in every lane, like its value's.
func opaqueLets(fn *ir.Func) map[*ir.Var]bool {
	var out, bound, again map[*ir.Var]bool
	for {
		out, bound = nil, map[*ir.Var]bool{}
		ir.WalkStmts(fn.Body, func(s ir.Stmt) {
			switch s := s.(type) {
			case *ir.Let:
				if bound[s.Var] {
					if again == nil {
						again = map[*ir.Var]bool{}
					}
					again[s.Var] = true
				}
				bound[s.Var] = true
				if !s.Mutable && !again[s.Var] && neverKnownWith(s.Value, out) {
					if out == nil {
						out = map[*ir.Var]bool{}
					}
					out[s.Var] = true
				}
			case *ir.Assign:
				if again == nil {
					again = map[*ir.Var]bool{}
				}
				again[s.Var] = true
			}
		})
		// a variable bound again is not opaque, nor what was found
		// opaque through it: walked again without it
		redo := false
		for v := range again {
			if out[v] {
				redo = true
			}
		}
		if !redo {
			return out
		}
	}
}

// skipped proves an If whose condition is neverKnown: the condition's
// accesses as any expression's; the arms' writes as taint leaves them (a
// scalar or register element assigned in them is a runtime value after
// the branch). It fails on a break or continue in the arms: the machine
// then skips the loop they leave.
func (p *shiftProof) skipped(s *ir.If, check bool) {
	p.expr(s.Cond, check)
	p.tainted(s.Then)
	p.tainted(s.Else)
}

func (p *shiftProof) tainted(b *ir.Block) {
	if b == nil || p.fail {
		return
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.Block:
			p.tainted(s)
		case *ir.Lowered:
			p.tainted(s.Body)
		case *ir.If:
			p.tainted(s.Then)
			p.tainted(s.Else)
		case *ir.For:
			p.taintVar(s.Var, false)
			p.tainted(s.Body)
		case *ir.While:
			p.tainted(s.Body)
		case *ir.Let:
			p.taintVar(s.Var, false)
		case *ir.Assign:
			p.taintVar(s.Var, true)
		case *ir.Store:
			if s.Buf.Scope == "local" {
				old, ok := p.local[s.Buf]
				if !ok {
					old = unsetShift
				}
				if n := join(old, 0); n != old || !ok {
					p.local[s.Buf] = n
					p.changed = true
				}
			}
		case *ir.Break, *ir.Continue:
			p.fail = true
		}
	}
}

// taintVar sets v as a runtime value (assigned: by an Assign, a value a
// loop may carry).
func (p *shiftProof) taintVar(v *ir.Var, assigned bool) {
	p.setRange(v, ival{})
	if p.letVals == nil {
		p.letVals = p.newLets()
	}
	p.letVals.set(v, nil)
	if assigned && p.loop != nil {
		p.assigned[v] = true
	}
	p.axes.set(v, "")
	p.set(v, 0)
}

// A branch taken in one iteration of a loop (flash_attention4.py's MMA
// loop releases Q early: `if i_kv == mma_trip_count - 2:`, the last
// iteration) made the loop proof fail: its condition moves with the
// loop variable. Every other iteration takes the same arm, and the
// machine executes the last iteration of a loop whatever it skips. The
// loop proof now follows that arm alone when a condition compares the
// loop variable, equal or not equal, with a value the same in every
// iteration and reading no memory (singularCond), and keeps the value;
// the machine then skips no unit that contains, in any lane, the
// iteration where the variable equals it (singularBound), and compares
// none that does: when the units compared first hold it (`if i_q != 0`
// over a loop starting at 0), it compares the units after them.

// singularCond reports, for a loop proof, whether cond is v == x or v
// != x (either way round) with v the loop's variable and x moving by
// nothing over the iterations and reading no memory; eq says which.
func (p *shiftProof) singularCond(cond ir.Expr, check bool) (x ir.Expr, eq bool) {
	b, ok := cond.(*ir.Binary)
	if !ok || p.loop == nil || (b.Op != ir.EQ && b.Op != ir.NE) {
		return nil, false
	}
	switch {
	case b.A == ir.Expr(p.loop):
		x = b.B
	case b.B == ir.Expr(p.loop):
		x = b.A
	default:
		return nil, false
	}
	if touchesMemory(x) || p.expr(x, check) != 0 || p.bodyWrites(x) {
		return nil, false
	}
	return x, b.Op == ir.EQ
}

// bodyWrites reports whether x reads a variable the loop's body assigns
// or a register it writes: such a value "moves by nothing" over a unit
// of iterations (a pipeline's phase comes back), not from one iteration
// to the next, and singularBound evaluates it once.
func (p *shiftProof) bodyWrites(x ir.Expr) bool {
	if p.loopAssigned == nil {
		p.loopAssigned = map[*ir.Var]bool{}
		ir.WalkStmts(p.body, func(s ir.Stmt) {
			switch s := s.(type) {
			case *ir.Assign:
				p.loopAssigned[s.Var] = true
			case *ir.Let:
				p.loopAssigned[s.Var] = true
			case *ir.For:
				p.loopAssigned[s.Var] = true
			}
		})
	}
	w := false
	walkExpr(x, func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Var:
			w = w || p.loopAssigned[e]
		case *ir.Load:
			w = w || p.written[e.Buf] || p.written[rootOf(e.Buf)]
		}
	})
	return w
}

// singularBound returns k, the units after iteration it the machine may
// skip, lowered so that none contains an iteration at which the loop's
// variable (v, lo + it at iteration it) equals one of the proof's
// singular values in an active lane; 0 when a value is not known or the
// compared units contain such an iteration (compared is then set: the
// machine may compare the units after it instead).
func (m *machine) singularBound(sk *loopSkip, v *ir.Var, it, k int64) (_ int64, compared bool) {
	vb := m.vars.get(v)
	if vb == nil || vb.why != "" {
		return 0, false
	}
	for _, x := range sk.lp.singular {
		c, why := m.eval(x)
		if why != "" {
			return 0, false
		}
		for i := range 32 {
			if m.mask&(1<<i) == 0 {
				continue
			}
			at := it + c[i] - vb.v[i] // the iteration where v == c
			switch {
			case at >= sk.base && at <= it:
				compared = true
			case at > it && at <= it+k*sk.block:
				k = min(k, (at-it-1)/sk.block)
			}
		}
	}
	if compared {
		return 0, true
	}
	return k, false
}
