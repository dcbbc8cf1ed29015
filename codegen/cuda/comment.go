package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// callComment spells a tile call as written in Python for the
// "// Tx.<scope>.<op>(...) -> <variant>" comment above each lowered body,
// e.g. Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32]). Names are the Python
// names as they are; nested operators are parenthesised. (codegen/tirx has
// the precedence-minimal printer; the import policy keeps the two printers
// independent.)
func callComment(c *ir.TileCall) string {
	var args []string
	for _, a := range c.Args {
		args = append(args, pyExpr(a, true))
	}
	for _, kv := range c.Config {
		args = append(args, kv.Key+"="+pyExpr(kv.Value, true))
	}
	if c.Dispatch != "" {
		args = append(args, "dispatch="+strconv.Quote(c.Dispatch))
	}
	callee := "Tx."
	if c.Scope != "" {
		callee += c.Scope + "."
	}
	return callee + c.Op + "(" + strings.Join(args, ", ") + ")"
}

var pyBinOp = map[ir.BinOp]string{
	ir.Add: "+", ir.Sub: "-", ir.Mul: "*", ir.FloorDiv: "//", ir.FloorMod: "%", ir.Div: "/",
	ir.EQ: "==", ir.NE: "!=", ir.LT: "<", ir.LE: "<=", ir.GT: ">", ir.GE: ">=",
	ir.And: "and", ir.Or: "or", ir.BitAnd: "&", ir.BitOr: "|", ir.BitXor: "^",
	ir.Shl: "<<", ir.Shr: ">>",
}

// pyExpr prints e in Python syntax; top says whether e stands alone (no
// parentheses needed around an operator).
func pyExpr(e ir.Expr, top bool) string {
	wrap := func(s string) string {
		if top {
			return s
		}
		return "(" + s + ")"
	}
	switch e := e.(type) {
	case nil:
		return "None"
	case *ir.IntImm:
		if e.Type == ir.BoolT {
			if e.Value != 0 {
				return "True"
			}
			return "False"
		}
		return strconv.FormatInt(e.Value, 10)
	case *ir.FloatImm:
		return strconv.FormatFloat(e.Value, 'g', -1, 64)
	case *ir.StringImm:
		return strconv.Quote(e.Value)
	case *ir.Var:
		return e.Name
	case *ir.Binary:
		switch e.Op {
		case ir.Min, ir.Max:
			fn := map[ir.BinOp]string{ir.Min: "T.min", ir.Max: "T.max"}[e.Op]
			return fn + "(" + pyExpr(e.A, true) + ", " + pyExpr(e.B, true) + ")"
		}
		return wrap(pyExpr(e.A, false) + " " + pyBinOp[e.Op] + " " + pyExpr(e.B, false))
	case *ir.Not:
		return wrap("not " + pyExpr(e.X, false))
	case *ir.Neg:
		return wrap("-" + pyExpr(e.X, false))
	case *ir.Load:
		return pyIndex(e.Buf, e.Indices)
	case *ir.Region:
		if e.Buf == nil {
			return "<nil buffer>[]"
		}
		parts := make([]string, len(e.Min))
		for i, m := range e.Min {
			var ext ir.Expr = ir.Const(1)
			if i < len(e.Extent) {
				ext = e.Extent[i]
			}
			parts[i] = pyExpr(m, true) + ":" + pyExpr(ir.AddE(m, ext), true)
		}
		return e.Buf.Name + "[" + strings.Join(parts, ", ") + "]"
	case *ir.BufferData:
		if e.Buf == nil {
			return "<nil buffer>.data"
		}
		return e.Buf.Name + ".data"
	case *ir.Cast:
		return "T.Cast(" + strconv.Quote(e.To.String()) + ", " + pyExpr(e.X, true) + ")"
	case *ir.ThreadIndex:
		return "T.thread_index(" + strconv.Quote(e.Axis) + ")"
	case *ir.Call:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = pyExpr(a, true)
		}
		return "T." + e.Op + "(" + strings.Join(args, ", ") + ")"
	}
	return fmt.Sprintf("<%T>", e)
}

func pyIndex(b *ir.Buffer, idx []ir.Expr) string {
	if b == nil {
		return "<nil buffer>[]"
	}
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = pyExpr(x, true)
	}
	return b.Name + "[" + strings.Join(parts, ", ") + "]"
}
