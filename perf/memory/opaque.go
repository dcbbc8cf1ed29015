package memory

import (
	"math"

	"github.com/tilels/tilels/ir"
)

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
func neverKnown(e ir.Expr) bool { return neverKnownVia(e, true) }

// neverKnownVia is neverKnown; without votes, it does not look through
// warp votes and shuffles (warpNeverKnown): a branch on a vote keeps the
// reason the machine gives for it (the operand it did not know).
func neverKnownVia(e ir.Expr, votes bool) bool {
	switch e := e.(type) {
	case *ir.FloatImm:
		return true
	case *ir.Cast:
		return e.To.IsFloat() || neverKnownVia(e.X, votes)
	case *ir.Binary:
		return neverKnownVia(e.A, votes) || neverKnownVia(e.B, votes)
	case *ir.Not:
		return neverKnownVia(e.X, votes)
	case *ir.Neg:
		return neverKnownVia(e.X, votes)
	case *ir.Call:
		return votes && warpNeverKnown(e, neverKnown)
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
	case *ir.Call:
		return warpNeverKnown(e, func(x ir.Expr) bool { return neverKnownWith(x, opaque) })
	}
	return neverKnown(e)
}

// warpNeverKnown reports whether c is a warp vote or shuffle that one of
// its operands makes never known (f): shuffle.go's warpCall gives no
// value when an operand has none (sparse_prefill_head64_phase1.py's
// `any_sync(0xFFFFFFFF, cur_pi_max - mi > 6.0) != 0`, a vote on a
// floating-point comparison, made the softmax scores control registers
// through the branch on it).
func warpNeverKnown(c *ir.Call, f func(ir.Expr) bool) bool {
	n := 0
	switch {
	case isAnySync(c.Op) && len(c.Args) == 2:
		n = 2
	case shuffleMode(c.Op) != 0 && len(c.Args) >= 4 && len(c.Args) <= maxCaptured:
		n = 4
	}
	for _, a := range c.Args[:n] {
		if f(a) {
			return true
		}
	}
	return false
}

// A condition may read such a value through a let: flash_attention4.py's
// epilogue binds `acc_O_row_is_zero_or_nan: T.let = tvm.tirx.any(row_sum[0]
// == 0.0, row_sum[0] != row_sum[0])` and selects on it. The select's
// condition then made row_sum a control register (dataregs.go), and
// through the sums the softmax scores, the exponentials' temporaries and
// every register of the softmax's unrolled loops: their 1,700 iterations
// a causal case were executed statement by statement instead of passed
// over (inert.go), half of each causal case's analysis.

// opaqueLets returns the variables of fn that one let binds to a
// neverKnown value (through the opaque variables bound before it) and
// that nothing else binds or assigns: the machine's evaluation of
// such a variable fails in every lane, like its value's.
func opaqueLets(fn *ir.Func) map[*ir.Var]bool {
	// The variables bound again (a second let, an assignment) first, by
	// a walk of the statements alone: the values of the lets are walked
	// once, knowing them. (It used to learn them as the walk of the
	// values went and walk the values again when one had been found
	// opaque: two walks of every let's value in a kernel that binds a
	// variable twice.)
	var again map[*ir.Var]bool
	bound := map[*ir.Var]bool{}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		var v *ir.Var
		switch s := s.(type) {
		case *ir.Let:
			if !bound[s.Var] {
				bound[s.Var] = true
				return
			}
			v = s.Var
		case *ir.Assign:
			v = s.Var
		default:
			return
		}
		if again == nil {
			again = map[*ir.Var]bool{}
		}
		again[v] = true
	})
	var out map[*ir.Var]bool
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		// (a mutable let nothing assigns binds once too: sparse_prefill's
		// should_scale_o: T.bool = ...)
		if s, ok := s.(*ir.Let); ok && !again[s.Var] && neverKnownWith(s.Value, out) {
			if out == nil {
				out = map[*ir.Var]bool{}
			}
			out[s.Var] = true
		}
	})
	return out
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

func (p *shiftProof) tainted(b *ir.Block) { p.setIn(b, 0) }

// setIn sets what b writes: each scalar and register element to move by
// sh (0: a runtime value, the same unknown in every warp; noShift: a
// value that moves by no constant).
func (p *shiftProof) setIn(b *ir.Block, sh int64) {
	if b == nil || p.fail {
		return
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.Block:
			p.setIn(s, sh)
		case *ir.Lowered:
			p.setIn(s.Body, sh)
		case *ir.If:
			p.setIn(s.Then, sh)
			p.setIn(s.Else, sh)
		case *ir.For:
			p.setVar(s.Var, false, sh)
			p.setIn(s.Body, sh)
		case *ir.While:
			p.setIn(s.Body, sh)
		case *ir.Let:
			p.setVar(s.Var, false, sh)
		case *ir.Assign:
			p.setVar(s.Var, true, sh)
		case *ir.Store:
			if s.Buf.Scope == "local" {
				if sh != 0 && p.state[s.Buf] {
					delete(p.state, s.Buf) // it moves: not state
					p.changed = true
				}
				old, ok := p.local[s.Buf]
				n, again := define(old, ok, sh)
				if n != old || !ok {
					p.local[s.Buf] = n
				}
				p.changed = p.changed || again
			}
		case *ir.Break, *ir.Continue:
			p.fail = true
		}
	}
}

// setVar sets v to a value that moves by sh, in no known range
// (assigned: by an Assign, a value a loop may carry).
func (p *shiftProof) setVar(v *ir.Var, assigned bool, sh int64) {
	p.setRange(v, ival{})
	if p.letVals == nil {
		p.letVals = p.newLets()
	}
	p.letVals.set(v, nil)
	if assigned && p.loop != nil {
		p.assigned[v] = true
	}
	p.axes.set(v, "")
	p.set(v, sh)
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
//
// An ordering compares the same way (flash_attention_backward.py's
// softmax loop signals the previous tile's consumer with `if i_m_inner
// > 0 and lane_id == 0:`): its Then arm is the common one, taken by
// every iteration but those at one end of the loop, a prefix (v > x,
// v >= x) or a suffix (v < x, v <= x), which the machine treats as it
// treats the one iteration of an equality. The comparison may be one
// side of a logical and (or) whose other side does not read the loop's
// variable: in the common iterations the branch is then that side's.

// singular is a set of iterations that take the uncommon arm of a
// branch: those where a op x, a - x moving by one per iteration (a is
// the loop's variable, or both sides move with it).
type singular struct {
	a, x ir.Expr
	op   ir.BinOp // EQ, LT, LE, GT or GE
}

// singularArm is the arm the common iterations of a singular branch
// take.
type singularArm int

const (
	armThen singularArm = iota
	armElse
	armRest // the condition's other side decides
)

// singularCond reports, for a loop proof, whether cond compares the loop
// variable v with x moving by nothing over the iterations and reading no
// memory, alone or as one side of a logical and/or (rest is then the
// other side); sg.x is nil when it does not.
func (p *shiftProof) singularCond(cond ir.Expr, check bool) (sg singular, arm singularArm, rest ir.Expr) {
	b, ok := cond.(*ir.Binary)
	if !ok || p.loop == nil {
		return singular{}, 0, nil
	}
	switch b.Op {
	case ir.And, ir.Or, ir.BitAnd, ir.BitOr:
		if !isBool(b) {
			return singular{}, 0, nil
		}
		and := b.Op == ir.And || b.Op == ir.BitAnd
		for _, side := range [2][2]ir.Expr{{b.A, b.B}, {b.B, b.A}} {
			sg, arm, r := p.singularCond(side[0], check)
			if sg.x == nil || r != nil || readsVar(side[1], p.loop) {
				continue
			}
			// common iterations: the side is true (Then) or false (Else)
			switch {
			case and && arm == armElse:
				return sg, armElse, nil
			case !and && arm == armThen:
				return sg, armThen, nil
			}
			return sg, armRest, side[1]
		}
		return singular{}, 0, nil
	case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE:
	default:
		return singular{}, 0, nil
	}
	op := b.Op
	var a, x ir.Expr
	switch {
	case b.A == ir.Expr(p.loop):
		a, x = b.A, b.B
	case b.B == ir.Expr(p.loop):
		a, x = b.B, b.A
		op = op.Mirrored()
	default:
		// a comparison of two sides whose difference moves by one per
		// iteration, proven over single iterations: linear in the
		// iteration (`m_tile_start + i < m_tile_start + 2`)
		if p.vars.get(p.loop) != 1 || !readsVar(b, p.loop) || touchesMemory(b) || p.bodyWrites(b) {
			return singular{}, 0, nil
		}
		sa, sb := p.expr(b.A, check), p.expr(b.B, check)
		switch {
		case sa == noShift || sb == noShift:
			return singular{}, 0, nil
		case sa-sb == 1:
			a, x = b.A, b.B
		case sa-sb == -1:
			a, x = b.B, b.A
			op = op.Mirrored()
		default:
			return singular{}, 0, nil
		}
		return p.singularOf(a, x, op)
	}
	if touchesMemory(x) || p.expr(x, check) != 0 || p.bodyWrites(x) {
		return singular{}, 0, nil
	}
	return p.singularOf(a, x, op)
}

// A branch whose condition orders two sides that move by different
// known shifts from one unit of iterations to the next, a - x by d != 0,
// takes one arm in every iteration from some iteration on, in every
// instance the body makes of it: once a - x is past x in the direction
// it moves, each later unit moves it further (fp8_blockwise_gemm.py's
// epilogue waits for the store two stages back, `if store_iter >= 2:`,
// store_iter = tile_count * 7 + ot over its tile loop and inner loop:
// every tile but the first). singularCond's rule needs the iteration
// where the arms change, which a value the body computes (store_iter)
// does not give before the units run; monoCond's needs none: the proof
// follows that eventual arm (monoCond), and the machine skips units only
// after compared units in which every instance took it (exec.go's
// ifStmt sets loopSkip.monoHit when one did not).

// monoCond reports, for a loop proof, whether cond is such an ordering
// (reading no memory itself), and the arm every iteration takes from
// some iteration on.
func (p *shiftProof) monoCond(cond ir.Expr, check bool) (singularArm, bool) {
	b, ok := cond.(*ir.Binary)
	if !ok || p.loop == nil || touchesMemory(b) {
		return 0, false
	}
	switch b.Op {
	case ir.LT, ir.LE, ir.GT, ir.GE:
	default:
		return 0, false
	}
	sa, sb := p.expr(b.A, check), p.expr(b.B, check)
	if sa == noShift || sb == noShift || sa == sb {
		return 0, false
	}
	grows := sa > sb // a - x grows from unit to unit
	if (b.Op == ir.GT || b.Op == ir.GE) == grows {
		return armThen, true
	}
	return armElse, true
}

// monoUncommon reports whether an execution of monotone branch s (its
// eventual arm arm) took the other arm in a lane: t holds the lanes of
// in that take Then.
func monoUncommon(arm singularArm, in, t uint32) bool {
	if arm == armThen {
		return in&^t != 0
	}
	return t != 0
}

// singularOf is the singular set and common arm of the branch a op x,
// with a - x moving by one per iteration. An equality's common arm is
// Else; an ordering's is the arm more of the loop's iterations take when
// a - x is the loop's variable plus a constant and its range is known
// (flash_attention_backward.py's causal `if i_m < m_tile_start + 2:`
// over 64 tiles: Else), else Then (`if i > 0:`, `if i < n - 1:`).
func (p *shiftProof) singularOf(a, x ir.Expr, op ir.BinOp) (singular, singularArm, ir.Expr) {
	switch op {
	case ir.EQ:
		return singular{a, x, ir.EQ}, armElse, nil
	case ir.NE:
		return singular{a, x, ir.EQ}, armThen, nil
	}
	if then, total, ok := p.thenCount(a, x, op); ok && 2*then < total {
		return singular{a, x, op}, armElse, nil
	}
	// the others are those of the negated comparison
	return singular{a, x, op.Negated()}, armThen, nil
}

// thenCount returns how many of the loop's iterations satisfy a op x, of
// how many, when a - x is the loop's variable plus a constant (terms
// that cancel compared with ir.Equal) and the variable's range is known.
func (p *shiftProof) thenCount(a, x ir.Expr, op ir.BinOp) (then, total int64, ok bool) {
	var terms []linTerm
	var k int64
	if !linearInto(a, 1, &terms, &k, 0) || !linearInto(x, -1, &terms, &k, 0) {
		return 0, 0, false
	}
	var coef int64
	for _, t := range terms {
		switch {
		case t.c == 0:
		case t.e == ir.Expr(p.loop) && coef == 0:
			coef = t.c
		default:
			return 0, 0, false
		}
	}
	r := p.rangeOf(p.loop, 0)
	if coef != 1 || !r.ok || r.hi < r.lo {
		return 0, 0, false
	}
	// v + k op 0: v op -k
	c := -k
	lo, hi := r.lo, r.hi
	switch op {
	case ir.LT:
		hi = min(hi, c-1)
	case ir.LE:
		hi = min(hi, c)
	case ir.GT:
		lo = max(lo, c+1)
	case ir.GE:
		lo = max(lo, c)
	default:
		return 0, 0, false
	}
	return max(hi-lo+1, 0), r.hi - r.lo + 1, true
}

// linTerm is c times e in a linear form.
type linTerm struct {
	e ir.Expr
	c int64
}

// linearInto adds coef times e to the linear form (terms, k): sums,
// differences, negations and constant multiples are expanded; other
// subexpressions are terms, equal ones (ir.Equal) merged.
func linearInto(e ir.Expr, coef int64, terms *[]linTerm, k *int64, depth int) bool {
	if depth > 16 || abs(coef) > rangeLimit {
		return false
	}
	switch e := e.(type) {
	case *ir.IntImm:
		*k += coef * e.Value
		return abs(*k) < rangeLimit
	case *ir.Neg:
		return linearInto(e.X, -coef, terms, k, depth+1)
	case *ir.Binary:
		switch e.Op {
		case ir.Add:
			return linearInto(e.A, coef, terms, k, depth+1) && linearInto(e.B, coef, terms, k, depth+1)
		case ir.Sub:
			return linearInto(e.A, coef, terms, k, depth+1) && linearInto(e.B, -coef, terms, k, depth+1)
		case ir.Mul:
			if c, ok := e.B.(*ir.IntImm); ok {
				return linearInto(e.A, coef*c.Value, terms, k, depth+1)
			}
			if c, ok := e.A.(*ir.IntImm); ok {
				return linearInto(e.B, coef*c.Value, terms, k, depth+1)
			}
		}
	}
	for i := range *terms {
		if t := &(*terms)[i]; t.e == e || ir.Equal(t.e, e) {
			t.c += coef
			return true
		}
	}
	*terms = append(*terms, linTerm{e, coef})
	return true
}

// readsVar reports whether e reads v.
func readsVar(e ir.Expr, v *ir.Var) bool {
	found := false
	walkExpr(e, func(e ir.Expr) {
		found = found || e == ir.Expr(v)
	})
	return found
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

// maxRestarts bounds the comparisons forLoop starts again after compared
// units that held a singular branch's other arm.
const maxRestarts = 3

// singularBound returns k, the units after iteration it the machine may
// skip, lowered so that none contains an iteration at which a singular
// branch of the proof takes its other arm in an active lane; 0 when a
// value is not known or the compared units contain such an iteration
// (compared is then set, and next is the first iteration after every
// such one among them, math.MaxInt64 when they go on to the end: the
// machine may compare the units from there instead).
func (m *machine) singularBound(sk *loopSkip, v *ir.Var, it, k int64) (_ int64, compared bool, next int64) {
	vb := m.vars.get(v)
	if vb == nil || vb.why != "" {
		return 0, false, 0
	}
	for _, sg := range sk.lp.singular {
		c, why := m.eval(sg.x)
		if why != "" {
			return 0, false, 0
		}
		av, why := m.eval(sg.a)
		if why != "" {
			return 0, false, 0
		}
		for i := range 32 {
			if m.mask&(1<<i) == 0 {
				continue
			}
			// the iterations where a op x: [from, to]
			at := it + c[i] - av[i] // the iteration where a == x
			from, to := at, at
			switch sg.op {
			case ir.LT:
				from, to = math.MinInt64, at-1
			case ir.LE:
				from = math.MinInt64
			case ir.GT:
				from, to = at+1, math.MaxInt64
			case ir.GE:
				to = math.MaxInt64
			}
			switch {
			case to < sk.base || from > it+k*sk.block:
			case from <= it:
				compared = true
				if to == math.MaxInt64 {
					next = to
				} else {
					next = max(next, to+1)
				}
			default:
				k = min(k, (from-it-1)/sk.block)
			}
		}
	}
	if compared {
		return 0, true, next
	}
	return k, false, 0
}

// restIf is s with its condition replaced by rest, the side of a logical
// and/or that decides in the iterations that take the common arm; one
// per branch, kept by the machine.
func (p *shiftProof) restIf(s *ir.If, rest ir.Expr) *ir.If {
	m := p.m
	if r, ok := m.restIfs[s]; ok {
		return r
	}
	if m.restIfs == nil {
		m.restIfs = map[*ir.If]*ir.If{}
	}
	r := &ir.If{Cond: rest, Then: s.Then, Else: s.Else, Span: s.Span}
	m.restIfs[s] = r
	return r
}

// A branch that moves from warp to warp, CTA to CTA or iteration to
// iteration need not break a proof when its arms do nothing the figures
// count: a persistent scheduler's `if linear_idx[0] < 3840:` picks the
// formula of the next tile's coordinates (nvfp4_gemm.py), registers read
// only by TMA copies, whose operands the machine does not read. Such
// arms hold lets, assignments and register stores of values that touch
// no memory and call nothing, and branches of the same kind; the proof
// walks past them, setting what they write to move by no shift, so that
// a later read where a value matters (an address, a branch, a bound)
// fails it as any value moving so does.

// quietIf is quietArms, kept per branch.
func (m *machine) quietIf(s *ir.If) bool {
	q, ok := m.quietIfs[s]
	if !ok {
		q = quietArms(s)
		if m.quietIfs == nil {
			m.quietIfs = map[*ir.If]bool{}
		}
		m.quietIfs[s] = q
	}
	return q
}

// quietArms reports whether both arms of s only compute values.
func quietArms(s *ir.If) bool {
	return quietBlock(s.Then) && quietBlock(s.Else)
}

func quietBlock(b *ir.Block) bool {
	if b == nil {
		return true
	}
	for _, st := range b.Stmts {
		switch st := st.(type) {
		case *ir.Comment:
		case *ir.Block:
			if !quietBlock(st) {
				return false
			}
		case *ir.Let:
			if touchesMemory(st.Value) {
				return false
			}
		case *ir.Assign:
			if touchesMemory(st.Value) {
				return false
			}
		case *ir.Store:
			if st.Buf.Scope != "local" || touchesMemory(st.Value) || anyTouchesMemory(st.Indices) {
				return false
			}
		case *ir.If:
			if touchesMemory(st.Cond) || !quietArms(st) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func anyTouchesMemory(es []ir.Expr) bool {
	for _, e := range es {
		if touchesMemory(e) {
			return true
		}
	}
	return false
}

// movedBy sets what the quiet block b writes to move by no shift.
func (p *shiftProof) movedBy(b *ir.Block) { p.setIn(b, noShift) }
