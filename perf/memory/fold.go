package memory

import "github.com/tilels/tilels/ir"

// unrolledConst folds e when every leaf is an integer constant or the
// variable of an enclosing unrolled loop (a constant in each unrolled
// copy, as nvcc sees it after unrolling): the value and true; else false.
func (m *machine) unrolledConst(e ir.Expr) (int64, bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value, true
	case *ir.Var:
		if m.unrolled[e] {
			if b := m.vars[e]; b != nil {
				return b.v[0], true
			}
		}
		if v, ok := m.lets[e]; ok {
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
		switch e.Op {
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
	}
	return 0, false
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
