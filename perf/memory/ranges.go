package memory

import (
	"slices"

	"github.com/tilels/tilels/ir"
)

// Bounds guards. Lowered copies guard their accesses with conditions
// such as (ki*256 + ty*32 + tx)*8 < 8192 that depend on the warp and the
// iteration, yet hold for every one of them (rmsnorm's 4 x 8 x 32 threads
// cover the 8192 elements exactly). The shift proofs (warps.go, ctas.go,
// loops.go) require a branch's condition to be the same in every warp,
// CTA or iteration; a condition whose value interval arithmetic proves
// the same for every value its variables take (thread and CTA indices
// over the launch, loop variables over their bounds, lets over their
// values) is. Anything not bounded (a runtime value, an assigned
// variable, a load) leaves the condition unproven.

// ival is the closed interval [lo, hi]; ok is false when not bounded.
type ival struct {
	lo, hi int64
	ok     bool
}

// rangeLimit bounds the magnitudes the intervals handle (no overflow).
const rangeLimit = 1 << 40

func mkIval(lo, hi int64) ival {
	if lo > hi || lo < -rangeLimit || hi > rangeLimit {
		return ival{}
	}
	return ival{lo, hi, true}
}

func hull(a, b ival) ival {
	if !a.ok || !b.ok {
		return ival{}
	}
	return mkIval(min(a.lo, b.lo), max(a.hi, b.hi))
}

// newLets returns an empty table for letVals (one of the analysis's
// kept ones when p has a machine).
func (p *shiftProof) newLets() *ptrMap[ir.Var, ir.Expr] {
	if p.m != nil {
		return p.m.proofMaps.lets.take()
	}
	return &ptrMap[ir.Var, ir.Expr]{}
}

// setRange records a definition of v with values in r (the hull of all
// of v's definitions; an unbounded one makes v unbounded for good).
func (p *shiftProof) setRange(v *ir.Var, r ival) {
	if p.ranges == nil {
		if p.m != nil {
			p.ranges = p.m.proofMaps.ranges.take()
		} else {
			p.ranges = &ptrMap[ir.Var, ival]{}
		}
	}
	if old, ok := p.ranges.lookup(v); ok {
		r = hull(old, r)
	}
	p.ranges.set(v, r)
}

// axisRange is the values thread or CTA axis a takes in the launch.
func (p *shiftProof) axisRange(a string) ival {
	threads := p.l.Threads()
	if p.class {
		// the role's warps clsLo..clsHi (warps.go)
		lo, hi := p.clsLo, p.clsHi
		sameWG := lo/4 == hi/4
		switch a {
		case "tx":
			return mkIval(32*lo, min(32*hi+31, threads-1))
		case "laneid":
			return mkIval(0, min(threads, 32)-1)
		case "warpid":
			return mkIval(lo, hi)
		case "wgid":
			return mkIval(lo/4, hi/4)
		case "tid_in_wg":
			if sameWG {
				return mkIval(32*(lo%4), 32*(hi%4)+31)
			}
			return mkIval(0, min(threads, 128)-1)
		case "wid_in_wg":
			if sameWG {
				return mkIval(lo%4, hi%4)
			}
			return mkIval(0, min((threads+31)/32, 4)-1)
		}
	}
	switch a {
	case "tx":
		return mkIval(0, threads-1)
	case "laneid":
		return mkIval(0, min(threads, 32)-1)
	case "warpid":
		return mkIval(0, (threads+31)/32-1)
	case "wgid":
		return mkIval(0, (threads+127)/128-1)
	case "tid_in_wg":
		return mkIval(0, min(threads, 128)-1)
	case "wid_in_wg":
		return mkIval(0, min((threads+31)/32, 4)-1)
	case "bx", "by", "bz":
		if g := p.l.Grid[a[1]-'x']; g > 0 {
			return mkIval(0, g-1)
		}
	}
	return ival{}
}

// scopeRange is the values variable i of scope id s takes.
func (p *shiftProof) scopeRange(s *ir.ScopeID, i int) ival {
	if p.class {
		// a thread axis over the role's warps only
		if s.Kind == ir.ThreadID && i == 0 {
			return p.axisRange("tx")
		}
		if a, ok := thAxis[s.Kind]; ok {
			return p.axisRange(a)
		}
	}
	if i < len(s.Extents) && s.Extents[i] > 0 {
		return mkIval(0, s.Extents[i]-1)
	}
	return ival{}
}

// rangeOf is an interval holding every value e takes.
func (p *shiftProof) rangeOf(e ir.Expr, depth int) ival {
	if depth > 32 {
		return ival{}
	}
	switch e := e.(type) {
	case *ir.IntImm:
		return mkIval(e.Value, e.Value)
	case *ir.Var:
		if p.class && p.letBudget > 0 {
			// the conditions' values per warp (warps.go's warpClasses):
			// a thread axis over the warp, a let through its value (a
			// budget of them: lets of lets may share their values)
			if a := p.axes.get(e); a != "" {
				return p.axisRange(a)
			}
			if v := p.letVals.get(e); v != nil {
				p.letBudget--
				return p.rangeOf(v, depth+1)
			}
		}
		if r, ok := p.ranges.lookup(e); ok {
			return r
		}
		if p.m == nil {
			break // (a proof made by a test)
		}
		if r, ok := p.m.scopeRanges[e]; ok {
			return r // a scope id defined outside the code proven
		}
	case *ir.ThreadIndex:
		return p.axisRange(e.Axis)
	case *ir.Cast:
		if e.To.Code == ir.Bool {
			return p.boolRange(e.X, depth+1)
		}
		return p.rangeOf(e.X, depth+1)
	case *ir.Neg:
		if r := p.rangeOf(e.X, depth+1); r.ok {
			return mkIval(-r.hi, -r.lo)
		}
	case *ir.Not:
		if r := p.boolRange(e.X, depth+1); r.ok {
			return mkIval(1-r.hi, 1-r.lo)
		}
	case *ir.Call:
		// a full warp's shuffle reads its value in another lane of the
		// same warp: one of the values it takes in the threads the range
		// is over (head128's warp_idx = __shfl_sync(~0, thread_idx // 32,
		// 0, 32), the warp's index in every lane)
		if shuffleMode(e.Op) != 0 && len(e.Args) >= 2 && fullMask(e.Args[0]) {
			return p.rangeOf(e.Args[1], depth+1)
		}
	case *ir.Select:
		if c := p.boolRange(e.Cond, depth+1); c.ok && c.lo == c.hi {
			if c.lo == 1 {
				return p.rangeOf(e.A, depth+1)
			}
			return p.rangeOf(e.B, depth+1)
		}
		return hull(p.rangeOf(e.A, depth+1), p.rangeOf(e.B, depth+1))
	case *ir.Binary:
		switch e.Op {
		case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or:
			return p.boolRange(e, depth)
		}
		a, b := p.rangeOf(e.A, depth+1), p.rangeOf(e.B, depth+1)
		if e.Op == ir.BitAnd && ((a.ok && a.lo == 0 && a.hi == 0) || (b.ok && b.lo == 0 && b.hi == 0)) {
			// 0 & x, whatever x is: (wg_id == 0) & (warp_id == 1) &
			// (elect_sync() != 0) in the warps other than 1
			return mkIval(0, 0)
		}
		if !a.ok || !b.ok {
			return ival{}
		}
		if a.lo == a.hi && b.lo == b.hi {
			switch e.Op {
			case ir.BitAnd:
				return mkIval(a.lo&b.lo, a.lo&b.lo)
			case ir.BitOr:
				return mkIval(a.lo|b.lo, a.lo|b.lo)
			case ir.BitXor:
				return mkIval(a.lo^b.lo, a.lo^b.lo)
			}
		}
		switch e.Op {
		case ir.Add:
			return mkIval(a.lo+b.lo, a.hi+b.hi)
		case ir.Sub:
			return mkIval(a.lo-b.hi, a.hi-b.lo)
		case ir.Mul:
			x := [4]int64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
			return mkIval(min(x[0], x[1], x[2], x[3]), max(x[0], x[1], x[2], x[3]))
		case ir.Min:
			return mkIval(min(a.lo, b.lo), min(a.hi, b.hi))
		case ir.Max:
			return mkIval(max(a.lo, b.lo), max(a.hi, b.hi))
		case ir.FloorDiv:
			if b.lo == b.hi && b.lo > 0 {
				return mkIval(floorDiv(a.lo, b.lo), floorDiv(a.hi, b.lo))
			}
		case ir.FloorMod:
			if b.lo == b.hi && b.lo > 0 {
				if floorDiv(a.lo, b.lo) == floorDiv(a.hi, b.lo) {
					return mkIval(floorMod(a.lo, b.lo), floorMod(a.hi, b.lo))
				}
				return mkIval(0, b.lo-1)
			}
		case ir.Shl:
			if b.lo == b.hi && b.lo >= 0 && b.lo < 24 {
				return mkIval(a.lo<<b.lo, a.hi<<b.lo)
			}
		case ir.Shr:
			if b.lo == b.hi && b.lo >= 0 && b.lo < 63 {
				return mkIval(a.lo>>b.lo, a.hi>>b.lo)
			}
		case ir.BitAnd:
			if a.lo >= 0 && b.lo >= 0 {
				return mkIval(0, min(a.hi, b.hi))
			}
		}
	}
	return ival{}
}

// boolRange is the truth values (0, 1) condition e takes.
func (p *shiftProof) boolRange(e ir.Expr, depth int) ival {
	if depth > 32 {
		return ival{}
	}
	switch e := e.(type) {
	case *ir.Not:
		if r := p.boolRange(e.X, depth+1); r.ok {
			return mkIval(1-r.hi, 1-r.lo)
		}
		return ival{}
	case *ir.Cast:
		return p.boolRange(e.X, depth+1)
	case *ir.Binary:
		op := e.Op
		if (op == ir.BitAnd || op == ir.BitOr) && isBool(e.A) && isBool(e.B) {
			op = map[ir.BinOp]ir.BinOp{ir.BitAnd: ir.And, ir.BitOr: ir.Or}[op] // (a == 1) & (b == 2)
		}
		if op == ir.Or {
			if r, ok := p.oneOf(e, depth); ok {
				return r
			}
		}
		switch op {
		case ir.And, ir.Or:
			a, b := p.boolRange(e.A, depth+1), p.boolRange(e.B, depth+1)
			if op == ir.And {
				if (a.ok && a.hi == 0) || (b.ok && b.hi == 0) {
					return mkIval(0, 0)
				}
				if a.ok && b.ok {
					return mkIval(min(a.lo, b.lo), min(a.hi, b.hi))
				}
				return ival{}
			}
			if (a.ok && a.lo == 1) || (b.ok && b.lo == 1) {
				return mkIval(1, 1)
			}
			if a.ok && b.ok {
				return mkIval(max(a.lo, b.lo), max(a.hi, b.hi))
			}
			return ival{}
		case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE:
			a, b := p.rangeOf(e.A, depth+1), p.rangeOf(e.B, depth+1)
			if !a.ok || !b.ok {
				return ival{}
			}
			var always, never bool
			switch e.Op {
			case ir.LT:
				always, never = a.hi < b.lo, a.lo >= b.hi
			case ir.LE:
				always, never = a.hi <= b.lo, a.lo > b.hi
			case ir.GT:
				always, never = a.lo > b.hi, a.hi <= b.lo
			case ir.GE:
				always, never = a.lo >= b.hi, a.hi < b.lo
			case ir.EQ:
				always, never = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo, a.hi < b.lo || b.hi < a.lo
			case ir.NE:
				always, never = a.hi < b.lo || b.hi < a.lo, a.lo == a.hi && b.lo == b.hi && a.lo == b.lo
			}
			switch {
			case always:
				return mkIval(1, 1)
			case never:
				return mkIval(0, 0)
			}
			return mkIval(0, 1)
		}
	}
	r := p.rangeOf(e, depth+1)
	if !r.ok {
		return ival{}
	}
	// an integer used as a condition: true when non-zero
	switch {
	case r.lo > 0 || r.hi < 0:
		return mkIval(1, 1)
	case r.lo == 0 && r.hi == 0:
		return mkIval(0, 0)
	}
	return mkIval(0, 1)
}

// isBool reports whether e is a truth value by its form (a comparison,
// a not, a logical or bitwise and/or of such): its bitwise and/or are
// then the logical ones.
func isBool(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Not:
		return true
	case *ir.Cast:
		return e.To.Code == ir.Bool
	case *ir.Var:
		// a T.bool scalar holds 0 or 1 (sparse_prefill_head128_phase1.py's
		// `if (k > 0) & should_scale_o:`, a bitwise and of a comparison
		// and such a flag, kept its K loop from skipping)
		return e.Type.Code == ir.Bool
	case *ir.Binary:
		switch e.Op {
		case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or:
			return true
		case ir.BitAnd, ir.BitOr:
			return isBool(e.A) && isBool(e.B)
		}
	}
	return false
}

// oneOf is the truth value of x == c1 or x == c2 or ... (logical or
// bitwise or, x one variable): true when every value x takes is one of
// the constants (warp_idx == 10 | warp_idx == 11 over warps 10 and 11),
// false when none is; ok false when neither holds or e has another form.
func (p *shiftProof) oneOf(e ir.Expr, depth int) (ival, bool) {
	var x *ir.Var
	var cs []int64
	var walk func(e ir.Expr) bool
	walk = func(e ir.Expr) bool {
		b, ok := e.(*ir.Binary)
		if !ok {
			return false
		}
		switch b.Op {
		case ir.Or, ir.BitOr:
			return walk(b.A) && walk(b.B)
		case ir.EQ:
			v, okV := b.A.(*ir.Var)
			c, okC := b.B.(*ir.IntImm)
			if !okV || !okC || (x != nil && v != x) {
				return false
			}
			x, cs = v, append(cs, c.Value)
			return true
		}
		return false
	}
	if !walk(e) || len(cs) > 64 {
		return ival{}, false
	}
	r := p.rangeOf(x, depth+1)
	if !r.ok || r.hi-r.lo >= int64(len(cs)) {
		return ival{}, false // more values than constants, or not known
	}
	in, out := 0, 0
	for v := r.lo; v <= r.hi; v++ {
		if slices.Contains(cs, v) {
			in++
		} else {
			out++
		}
	}
	switch {
	case out == 0:
		return mkIval(1, 1), true
	case in == 0:
		return mkIval(0, 0), true
	}
	return ival{}, false
}

// fixedCond reports whether condition c has one value for every value
// of its variables (a bounds guard every thread passes).
func (p *shiftProof) fixedCond(c ir.Expr) bool {
	r := p.boolRange(c, 0)
	return r.ok && r.lo == r.hi
}

// loopRange is the values the variable of loop s takes.
func (p *shiftProof) loopRange(s *ir.For) ival {
	lo := mkIval(0, 0)
	if s.Min != nil {
		lo = p.rangeOf(s.Min, 0)
	}
	ext := p.rangeOf(s.Extent, 0)
	if !lo.ok || !ext.ok {
		return ival{}
	}
	if ext.hi < 1 {
		return mkIval(lo.lo, lo.lo) // never runs
	}
	return mkIval(lo.lo, lo.hi+ext.hi-1)
}

// noteScope records the values of s's variables for every proof of the
// analysis (a loop's proof does not see the scope ids above it).
func (m *machine) noteScope(s *ir.ScopeID) {
	if m.scopeRanges == nil {
		m.scopeRanges = map[*ir.Var]ival{}
	}
	for i, v := range s.Vars {
		r := ival{}
		if i < len(s.Extents) && s.Extents[i] > 0 {
			r = mkIval(0, s.Extents[i]-1)
		}
		if old, ok := m.scopeRanges[v]; ok {
			r = hull(old, r) // (assigned: unbounded for good)
		}
		m.scopeRanges[v] = r
	}
}

// noteAssign makes a scope id variable that code assigns unbounded.
func (m *machine) noteAssign(v *ir.Var) {
	if m.scopeRanges == nil {
		m.scopeRanges = map[*ir.Var]ival{}
	}
	m.scopeRanges[v] = ival{}
	if m.assigned == nil {
		m.assigned = map[*ir.Var]bool{}
	}
	m.assigned[v] = true
}

// fullMask reports whether e is the constant mask of all 32 lanes.
func fullMask(e ir.Expr) bool {
	if c, ok := e.(*ir.Cast); ok {
		e = c.X
	}
	c, ok := e.(*ir.IntImm)
	return ok && uint32(c.Value) == 0xFFFFFFFF
}
