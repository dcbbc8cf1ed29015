package dispatch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// CallText renders a tile call the way a user wrote it, from the IR:
// `Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32], dispatch="vec_64b")`.
// It fills the "opcall:" lines of Explanation.Table (TVM prints the call
// as TVMScript there; tilels prints this instead).
func CallText(tc *ir.TileCall) string {
	var b strings.Builder
	b.WriteString("Tx.")
	if tc.Scope != "" && tc.Scope != "thread" {
		b.WriteString(tc.Scope + ".")
	}
	b.WriteString(tc.Op + "(")
	args := tc.WrittenArgs()
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		if a == nil {
			b.WriteString("None")
			continue
		}
		b.WriteString(ExprText(a))
	}
	first := len(args) == 0
	for _, kv := range tc.Config {
		if kv.Key == "dispatch" {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(kv.Key + "=" + ExprText(kv.Value))
	}
	if tc.Dispatch != "" {
		if !first {
			b.WriteString(", ")
		}
		b.WriteString(fmt.Sprintf("dispatch=%q", tc.Dispatch))
	}
	b.WriteString(")")
	return b.String()
}

// ExprText renders an expression in Python syntax (for messages only).
func ExprText(e ir.Expr) string {
	switch e := e.(type) {
	case nil:
		return "None"
	case *ir.IntImm:
		return strconv.FormatInt(e.Value, 10)
	case *ir.FloatImm:
		return strconv.FormatFloat(e.Value, 'g', -1, 64)
	case *ir.StringImm:
		return strconv.Quote(e.Value)
	case *ir.Var:
		return e.Name
	case *ir.ThreadIndex:
		return e.Axis
	case *ir.Tuple:
		parts := make([]string, len(e.Elems))
		for i, x := range e.Elems {
			parts[i] = ExprText(x)
		}
		if len(parts) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case *ir.Region:
		var b strings.Builder
		b.WriteString(e.Buf.Name + "[")
		for i := range e.Min {
			if i > 0 {
				b.WriteString(", ")
			}
			lo := ExprText(e.Min[i])
			if i < len(e.Extent) {
				b.WriteString(lo + ":" + ExprText(ir.AddE(e.Min[i], e.Extent[i])))
			} else {
				b.WriteString(lo)
			}
		}
		b.WriteString("]")
		return b.String()
	case *ir.Binary:
		return "(" + ExprText(e.A) + " " + binOpText(e.Op) + " " + ExprText(e.B) + ")"
	case *ir.Not:
		return "not " + ExprText(e.X)
	case *ir.Neg:
		return "-" + ExprText(e.X)
	case *ir.Call:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = ExprText(a)
		}
		return e.Op + "(" + strings.Join(args, ", ") + ")"
	case *ir.Cast:
		return fmt.Sprintf("T.cast(%s, %q)", ExprText(e.X), e.To.String())
	case *ir.Load:
		idx := make([]string, len(e.Indices))
		for i, x := range e.Indices {
			idx[i] = ExprText(x)
		}
		return e.Buf.Name + "[" + strings.Join(idx, ", ") + "]"
	case *ir.BufferData:
		return e.Buf.Name + ".data"
	case *ir.AddressOf:
		idx := make([]string, len(e.Indices))
		for i, x := range e.Indices {
			idx[i] = ExprText(x)
		}
		return "&" + e.Buf.Name + "[" + strings.Join(idx, ", ") + "]"
	case *ir.TensorMapAddr:
		return "T.address_of(" + e.Map.Name + ")"
	case *ir.Select:
		return "T.if_then_else(" + ExprText(e.Cond) + ", " + ExprText(e.A) + ", " + ExprText(e.B) + ")"
	}
	return fmt.Sprintf("%T", e)
}

func binOpText(op ir.BinOp) string {
	switch op {
	case ir.Add:
		return "+"
	case ir.Sub:
		return "-"
	case ir.Mul:
		return "*"
	case ir.FloorDiv:
		return "//"
	case ir.FloorMod:
		return "%"
	case ir.Div:
		return "/"
	case ir.Min:
		return "min"
	case ir.Max:
		return "max"
	case ir.EQ:
		return "=="
	case ir.NE:
		return "!="
	case ir.LT:
		return "<"
	case ir.LE:
		return "<="
	case ir.GT:
		return ">"
	case ir.GE:
		return ">="
	case ir.And:
		return "and"
	case ir.Or:
		return "or"
	case ir.BitAnd:
		return "&"
	case ir.BitOr:
		return "|"
	case ir.BitXor:
		return "^"
	case ir.Shl:
		return "<<"
	case ir.Shr:
		return ">>"
	}
	return "?"
}
