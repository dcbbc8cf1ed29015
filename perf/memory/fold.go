package memory

import (
	"slices"
	"unsafe"

	"github.com/tilels/tilels/ir"
)

// unrolledConst folds e when every leaf is an integer constant or the
// variable of an enclosing unrolled loop (a constant in each unrolled
// copy, as nvcc sees it after unrolling): the value and true; else false.
func (m *machine) unrolledConst(e ir.Expr) (int64, bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value, true
	case *ir.Var:
		if m.isUnrolled(e) {
			if b := m.vars.get(e); b != nil {
				return b.v[0], true
			}
		}
		if v, ok := m.lets.lookup(e); ok {
			return m.unrolledConst(v)
		}
		return 0, false
	case *ir.Cast:
		return m.unrolledConst(e.X)
	case *ir.Binary:
		a, ok := m.unrolledConst(e.A)
		if !ok {
			return 0, false
		}
		b, ok := m.unrolledConst(e.B)
		if !ok {
			return 0, false
		}
		return foldConst(e.Op, a, b)
	}
	return 0, false
}

// foldConst is a op b as nvcc folds it (false: an operator it does not
// fold here, or a shift or division out of range).
func foldConst(op ir.BinOp, a, b int64) (int64, bool) {
	switch op {
	case ir.Add:
		return a + b, true
	case ir.Sub:
		return a - b, true
	case ir.Mul:
		return a * b, true
	case ir.Shl:
		if b >= 0 && b < 63 {
			return a << b, true
		}
	case ir.FloorDiv:
		if b > 0 {
			q := a / b
			if a%b != 0 && a < 0 {
				q--
			}
			return q, true
		}
	case ir.FloorMod:
		if b > 0 {
			r := a % b
			if r < 0 {
				r += b
			}
			return r, true
		}
	case ir.Shr:
		if b >= 0 && b < 63 {
			return a >> b, true
		}
	case ir.Min:
		return min(a, b), true
	case ir.Max:
		return max(a, b), true
	case ir.BitAnd:
		return a & b, true
	case ir.BitOr:
		return a | b, true
	case ir.BitXor:
		return a ^ b, true
	}
	return 0, false
}

// isUnrolled reports whether v is the variable of an enclosing unroll
// loop.
func (m *machine) isUnrolled(v *ir.Var) bool {
	for _, u := range m.unrolled {
		if u == v {
			return true
		}
	}
	return false
}

// constIndex is the exact divisibility of an element offset el (per
// lane) whose indices all fold to constants (unrolledConst): nvcc knows
// the address, so its alignment is the offset's own (bigDiv for 0).
func (m *machine) constIndex(idx []ir.Expr, el lanes) (int64, bool) {
	for _, x := range idx {
		if _, ok := m.unrolledConst(x); !ok {
			return 0, false
		}
	}
	for i := range 32 {
		if m.mask&(1<<i) != 0 {
			if el[i] == 0 {
				return bigDiv, true
			}
			return abs(el[i]), true
		}
	}
	return 0, false
}

// wrapsUnrolled reports whether a dimension's index adds something to a
// floordiv of a sum of an unrolled loop's variable and a value nvcc does
// not know (a thread index): A_s[(X // 4096 + s), X // 64 % 64, X % 64]
// with X = s2*1024 + tid*8 + v. TVM flattens a plain X // c with the
// inner dimensions' X % c back to X, but not (X // c + s) * c + X % c,
// which the .cu keeps; nvcc cannot prove the unrolled copies' addresses
// contiguous (X might cross a multiple of c) and does not merge them.
// Measured: eight LDS.U16/STS.U16 per v < 8 bundle (factory_module
// scale_stages, v_loop_regions ewise_rows).
func (m *machine) wrapsUnrolled(idx []ir.Expr) bool {
	if len(idx) < 2 {
		return false
	}
	for _, x := range idx {
		b, ok := x.(*ir.Binary)
		if !ok || (b.Op != ir.Add && b.Op != ir.Sub) {
			continue
		}
		for _, t := range []ir.Expr{b.A, b.B} {
			if q, ok := t.(*ir.Binary); ok && q.Op == ir.FloorDiv {
				var unr, other bool
				m.leaves(q.A, &unr, &other, 0)
				if unr && other {
					return true
				}
			}
		}
	}
	return false
}

// leaves sets unr when e uses an unrolled loop's variable and other when
// it uses a variable that is not one (through lets).
func (m *machine) leaves(e ir.Expr, unr, other *bool, depth int) {
	if depth > 32 {
		*other = true
		return
	}
	switch e := e.(type) {
	case *ir.IntImm:
	case *ir.Var:
		switch {
		case m.isUnrolled(e):
			*unr = true
		default:
			if len(m.assigned) > 0 && m.assigned[e] {
				m.leafMoved = true // (its let may go: unrolledApart)
			}
			if v, ok := m.lets.lookup(e); ok {
				m.leaves(v, unr, other, depth+1)
			} else {
				*other = true
			}
		}
	case *ir.Cast:
		m.leaves(e.X, unr, other, depth+1)
	case *ir.Binary:
		m.leaves(e.A, unr, other, depth+1)
		m.leaves(e.B, unr, other, depth+1)
	default:
		*other = true
	}
}

// apartKey is an access's indices (their storage, which one load or
// store node owns) in one buffer.
type apartKey struct {
	buf  *ir.Buffer
	idx  *ir.Expr
	n    int32
	flat bool
}

// apartShape is what unrolledApart found of an access's indices under
// the unroll loops listed in unrolled: the walks read only the indices'
// shape, the lets they name and which variables are unrolled, none of
// the iteration's values.
type apartShape struct {
	unrolled []*ir.Var
	wraps    bool
	// divides is dividesUnrolled's answer (0: not asked yet, 1: false,
	// 2: true): asked only outside a vector-loads loop
	divides int8
}

// unrolledApart reports whether nvcc cannot prove the unrolled copies of
// an access contiguous (wrapsUnrolled, or dividesUnrolled where the
// loads are not vectorized): the walks are made once per access and
// enclosing unroll loops, not at every unrolled copy (they were a
// quarter of an element-wise kernel's analysis).
func (m *machine) unrolledApart(buf *ir.Buffer, idx []ir.Expr, flat bool) bool {
	if len(idx) == 0 {
		return m.loads != vectorLoads && m.dividesUnrolled(buf, idx, flat)
	}
	k := apartKey{buf, unsafe.SliceData(idx), int32(len(idx)), flat}
	s := m.aparts[k]
	if s == nil || !slices.Equal(s.unrolled, m.unrolled) {
		m.leafMoved = false
		wraps := m.wrapsUnrolled(idx)
		if m.leafMoved {
			// a variable an Assign sets: its let may be gone next time
			return wraps || (m.loads != vectorLoads && m.dividesUnrolled(buf, idx, flat))
		}
		if m.aparts == nil {
			m.aparts = map[apartKey]*apartShape{}
		}
		s = &apartShape{unrolled: slices.Clone(m.unrolled), wraps: wraps}
		m.aparts[k] = s
	}
	if s.wraps {
		return true
	}
	if m.loads == vectorLoads {
		return false
	}
	if s.divides == 0 {
		m.leafMoved = false
		d := m.dividesUnrolled(buf, idx, flat)
		if m.leafMoved {
			return d
		}
		s.divides = 1
		if d {
			s.divides = 2
		}
	}
	return s.divides == 2
}
