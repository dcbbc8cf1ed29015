package cuda

import (
	"strconv"

	"github.com/tilels/tilels/ir"
)

// hostExpr prints a runtime launch extent (ir.Launch.GridExpr) as a host C
// expression over the launcher's parameters. It handles what grid extents
// are made of (integer constants, scalar kernel parameters, + - * // %,
// min, max and integer casts); anything else, or a variable that is not
// a parameter, returns false and the launcher reports the launch as
// unknown.
func (k *kernel) hostExpr(e ir.Expr) (string, bool) {
	switch x := e.(type) {
	case *ir.IntImm:
		return "(long long)" + strconv.FormatInt(x.Value, 10), true
	case *ir.Var:
		n, ok := k.params[x]
		if !ok || (x.Type.Code != ir.Int && x.Type.Code != ir.UInt) {
			return "", false
		}
		return "(long long)" + n, true
	case *ir.Cast:
		if x.To.Code != ir.Int && x.To.Code != ir.UInt {
			return "", false
		}
		return k.hostExpr(x.X)
	case *ir.Binary:
		a, ok := k.hostExpr(x.A)
		if !ok {
			return "", false
		}
		b, ok := k.hostExpr(x.B)
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
