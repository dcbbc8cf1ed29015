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
// independent.) It writes into one builder: concatenating a string per
// node was 20% of BenchmarkPrintCUDA3000 allocations.
func callComment(c *ir.TileCall) string {
	var b strings.Builder
	b.WriteString("Tx.")
	if c.Scope != "" {
		b.WriteString(c.Scope)
		b.WriteByte('.')
	}
	b.WriteString(c.Op)
	b.WriteByte('(')
	n := 0
	sep := func() {
		if n > 0 {
			b.WriteString(", ")
		}
		n++
	}
	for _, a := range c.WrittenArgs() {
		sep()
		writePy(&b, a, true)
	}
	for _, kv := range c.Config {
		sep()
		b.WriteString(kv.Key)
		b.WriteByte('=')
		writePy(&b, kv.Value, true)
	}
	if c.Dispatch != "" {
		sep()
		b.WriteString("dispatch=")
		b.WriteString(strconv.Quote(c.Dispatch))
	}
	b.WriteByte(')')
	return b.String()
}

var pyBinOp = map[ir.BinOp]string{
	ir.Add: "+", ir.Sub: "-", ir.Mul: "*", ir.FloorDiv: "//", ir.FloorMod: "%", ir.Div: "/",
	ir.EQ: "==", ir.NE: "!=", ir.LT: "<", ir.LE: "<=", ir.GT: ">", ir.GE: ">=",
	ir.And: "and", ir.Or: "or", ir.BitAnd: "&", ir.BitOr: "|", ir.BitXor: "^",
	ir.Shl: "<<", ir.Shr: ">>",
}

// writePy prints e in Python syntax into b; top says whether e stands
// alone (no parentheses needed around an operator).
func writePy(b *strings.Builder, e ir.Expr, top bool) {
	open := func() {
		if !top {
			b.WriteByte('(')
		}
	}
	closeP := func() {
		if !top {
			b.WriteByte(')')
		}
	}
	switch e := e.(type) {
	case nil:
		b.WriteString("None")
	case *ir.IntImm:
		if e.Type == ir.BoolT {
			if e.Value != 0 {
				b.WriteString("True")
			} else {
				b.WriteString("False")
			}
			return
		}
		b.WriteString(strconv.FormatInt(e.Value, 10))
	case *ir.FloatImm:
		f := strconv.FormatFloat(e.Value, 'g', -1, 64)
		if !strings.ContainsAny(f, ".eEn") { // keep floats looking like floats: -1.0, not -1
			f += ".0"
		}
		b.WriteString(f)
	case *ir.StringImm:
		b.WriteString(strconv.Quote(e.Value))
	case *ir.Var:
		b.WriteString(e.Name)
	case *ir.Binary:
		switch e.Op {
		case ir.Min, ir.Max:
			if e.Op == ir.Min {
				b.WriteString("T.min(")
			} else {
				b.WriteString("T.max(")
			}
			writePy(b, e.A, true)
			b.WriteString(", ")
			writePy(b, e.B, true)
			b.WriteByte(')')
			return
		}
		open()
		writePy(b, e.A, false)
		b.WriteByte(' ')
		b.WriteString(pyBinOp[e.Op])
		b.WriteByte(' ')
		writePy(b, e.B, false)
		closeP()
	case *ir.Not:
		open()
		b.WriteString("not ")
		writePy(b, e.X, false)
		closeP()
	case *ir.Neg:
		open()
		b.WriteByte('-')
		writePy(b, e.X, false)
		closeP()
	case *ir.Load:
		writePyIndex(b, e.Buf, e.Indices)
	case *ir.Region:
		if e.Buf == nil {
			b.WriteString("<nil buffer>[]")
			return
		}
		b.WriteString(e.Buf.Name)
		b.WriteByte('[')
		for i, m := range e.Min {
			if i > 0 {
				b.WriteString(", ")
			}
			var ext ir.Expr = one
			if i < len(e.Extent) {
				ext = e.Extent[i]
			}
			writePy(b, m, true)
			b.WriteByte(':')
			writePySum(b, m, ext)
		}
		b.WriteByte(']')
	case *ir.BufferData:
		if e.Buf == nil {
			b.WriteString("<nil buffer>.data")
			return
		}
		b.WriteString(e.Buf.Name)
		b.WriteString(".data")
	case *ir.Cast:
		b.WriteString("T.Cast(")
		b.WriteString(strconv.Quote(e.To.String()))
		b.WriteString(", ")
		writePy(b, e.X, true)
		b.WriteByte(')')
	case *ir.ThreadIndex:
		b.WriteString("T.thread_index(")
		b.WriteString(strconv.Quote(e.Axis))
		b.WriteByte(')')
	case *ir.Call:
		b.WriteString("T.")
		b.WriteString(e.Op)
		b.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			writePy(b, a, true)
		}
		b.WriteByte(')')
	case *ir.AddressOf:
		b.WriteString("T.address_of(")
		writePyIndex(b, e.Buf, e.Indices)
		b.WriteByte(')')
	case *ir.TensorMapAddr:
		b.WriteString("T.address_of(")
		if e.Map == nil {
			b.WriteString("<nil tensormap>")
		} else {
			b.WriteString(e.Map.Name)
		}
		b.WriteByte(')')
	case *ir.Tuple: // a config list (gather4=[...], src_selector=[...])
		b.WriteByte('(')
		for i, a := range e.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			writePy(b, a, true)
		}
		if len(e.Elems) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "<%T>", e)
	}
}

var one = ir.Const(1)

// writePySum writes ir.AddE(a, b) at the top, folding constants as AddE
// does without building the node.
func writePySum(w *strings.Builder, a, b ir.Expr) {
	ca, aok := ir.ConstInt(a)
	cb, bok := ir.ConstInt(b)
	switch {
	case aok && bok:
		w.WriteString(strconv.FormatInt(ca+cb, 10))
	case aok && ca == 0:
		writePy(w, b, true)
	case bok && cb == 0:
		writePy(w, a, true)
	default:
		writePy(w, ir.AddE(a, b), true)
	}
}

func writePyIndex(w *strings.Builder, b *ir.Buffer, idx []ir.Expr) {
	if b == nil {
		w.WriteString("<nil buffer>[]")
		return
	}
	w.WriteString(b.Name)
	w.WriteByte('[')
	for i, x := range idx {
		if i > 0 {
			w.WriteString(", ")
		}
		writePy(w, x, true)
	}
	w.WriteByte(']')
}
