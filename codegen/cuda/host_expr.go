package cuda

import (
	"strconv"

	"github.com/tilels/tilels/ir"
)

// hostExpr prints a runtime launch extent (ir.Launch.GridExpr) as a host C
// expression over the launcher's parameters. It handles what grid extents
// are made of (integer constants, scalar kernel parameters, the host-side
// lets over them (inlined), + - * // %,
// min, max and integer casts); anything else, or a variable that is not
// a parameter, returns false and the launcher reports the launch as
// unknown.
func (k *kernel) hostExpr(e ir.Expr) (string, bool) {
	budget := 4096 // nodes printed, lets inlined included
	return k.hostExprIn(e, ir.HostLets(k.fn), &budget)
}

func (k *kernel) hostExprIn(e ir.Expr, lets map[*ir.Var]ir.Expr, budget *int) (string, bool) {
	if *budget--; *budget < 0 {
		return "", false
	}
	switch x := e.(type) {
	case *ir.IntImm:
		return "(long long)" + strconv.FormatInt(x.Value, 10), true
	case *ir.Var:
		if v, ok := lets[x]; ok {
			// A host-side let (cta_count: T.let = T.min(148, n)
			// before T.device_entry()): its value, inlined.
			return k.hostExprIn(v, lets, budget)
		}
		n, ok := k.params[x]
		if !ok || (x.Type.Code != ir.Int && x.Type.Code != ir.UInt) {
			return "", false
		}
		return "(long long)" + n, true
	case *ir.Cast:
		if x.To.Code != ir.Int && x.To.Code != ir.UInt {
			return "", false
		}
		return k.hostExprIn(x.X, lets, budget)
	case *ir.Binary:
		a, ok := k.hostExprIn(x.A, lets, budget)
		if !ok {
			return "", false
		}
		b, ok := k.hostExprIn(x.B, lets, budget)
		if !ok {
			return "", false
		}
		switch x.Op {
		case ir.Add:
			return "(" + a + " + " + b + ")", true
		case ir.Sub:
			return "(" + a + " - " + b + ")", true
		case ir.Mul:
			return "(" + a + " * " + b + ")", true
		case ir.FloorDiv:
			// C '/' and '%' are floordiv and floormod on the
			// non-negative values launch extents are made of.
			return "(" + a + " / " + b + ")", true
		case ir.FloorMod:
			return "(" + a + " % " + b + ")", true
		case ir.Min:
			return "(" + a + " < " + b + " ? " + a + " : " + b + ")", true
		case ir.Max:
			return "(" + a + " > " + b + " ? " + a + " : " + b + ")", true
		}
	}
	return "", false
}
