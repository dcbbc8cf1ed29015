package harness

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/ir"
)

// Elementwise semantics (spec §1.5 argument order, §4.4 scalar compute):
//
//	zero(dst)                       0
//	fill(dst, value)                value
//	reciprocal(dst, src)            1 / x
//	sqrt|exp|exp2|log2(dst, src, bias, scale)   f(x·scale + bias)
//	silu(dst, src)                  x / (1 + exp(0 − x))
//	add|sub|mul|fdiv|maximum|minimum(dst, a, b)
//	cast(dst, src)                  x
//	fma(dst, a, b, c)               a·b + c
//
// each value then cast to dst's dtype. A missing src is dst (the Tx facade
// fills it in).

// inexactOps are the ops whose GPU results may differ from the correctly
// rounded value (approximate math functions, FMA contraction): a kernel
// that has one is compared within a tolerance.
var inexactOps = map[string]bool{
	"sqrt": true, "exp": true, "exp2": true, "log2": true, "reciprocal": true, "silu": true,
	"fdiv": true, "fma": true,
}

// tval is a typed value inside the compute lambda.
type tval struct {
	code string
	typ  ir.DataType
	imm  bool // a literal: it takes the other operand's type
}

// operand is one source of an elementwise call.
type operand struct {
	region *ir.Region
	scalar ir.Expr
}

func (g *gen) ewiseCall(c *ir.TileCall) {
	arg := func(i int) ir.Expr {
		if i < len(c.Args) {
			return c.Args[i]
		}
		return nil
	}
	dst, ok := arg(0).(*ir.Region)
	if !ok {
		g.fail(c.Span, "Tx.%s: dst must be a region", c.Op)
		return
	}
	var ops []operand
	// use adds a source operand and returns its value in the lambda.
	use := func(e ir.Expr) tval {
		if e == nil {
			e = dst
		}
		i := len(ops)
		if r, ok := e.(*ir.Region); ok {
			ops = append(ops, operand{region: r})
			return tval{code: fmt.Sprintf("v[%d]", i), typ: r.Buf.Dtype}
		}
		ops = append(ops, operand{scalar: e})
		return tval{code: fmt.Sprintf("v[%d]", i), typ: exprType(e), imm: isImm(e)}
	}
	dt := dst.Buf.Dtype
	var out tval
	switch c.Op {
	case "zero":
		out = tval{code: "0.0", typ: dt}
	case "fill", "cast":
		out = use(arg(1))
	case "reciprocal":
		x := use(arg(1))
		out = g.bin("/", tval{code: "1.0", typ: x.typ, imm: true}, x)
	case "sqrt", "exp", "exp2", "log2":
		x := use(arg(1))
		if s := arg(3); s != nil {
			x = g.bin("*", x, use(s))
		}
		if b := arg(2); b != nil {
			x = g.bin("+", x, use(b))
		}
		out = tval{code: fmt.Sprintf("tl_round(%s, %s(%s))", dtypeEnum(x.typ), mathFn[c.Op], x.code), typ: x.typ}
	case "silu":
		x := use(arg(1))
		one := tval{code: "1.0", typ: x.typ, imm: true}
		zero := tval{code: "0.0", typ: x.typ, imm: true}
		neg := g.bin("-", zero, x)
		e := tval{code: fmt.Sprintf("tl_round(%s, std::exp(%s))", dtypeEnum(x.typ), neg.code), typ: x.typ}
		out = g.bin("/", x, g.bin("+", one, e))
	case "add", "sub", "mul", "fdiv", "maximum", "minimum":
		a, b := use(arg(1)), use(arg(2))
		out = g.bin(map[string]string{"add": "+", "sub": "-", "mul": "*", "fdiv": "/", "maximum": "max", "minimum": "min"}[c.Op], a, b)
	case "fma":
		a, b, cc := use(arg(1)), use(arg(2)), use(arg(3))
		out = g.bin("+", g.bin("*", a, b), cc)
	default:
		g.fail(c.Span, "Tx.%s is not modelled by the reference", c.Op)
		return
	}
	if len(ops) > 4 {
		g.fail(c.Span, "Tx.%s has more than 4 sources", c.Op)
		return
	}
	for _, o := range ops {
		if o.region != nil && !dtypeOK(o.region.Buf.Dtype) {
			g.fail(c.Span, "Tx.%s on %s values is not modelled", c.Op, o.region.Buf.Dtype)
		}
	}
	d := g.region(dst)
	srcs := make([]string, len(ops))
	for i, o := range ops {
		if o.region != nil {
			srcs[i] = "{&" + g.region(o.region) + ", 0.0}"
		} else {
			srcs[i] = "{nullptr, " + g.exprD(o.scalar, "t") + "}"
		}
	}
	if len(srcs) == 0 {
		srcs = []string{"{nullptr, 0.0}"}
	}
	so := g.fresh("src")
	g.line("const Operand %s[] = {%s};", so, strings.Join(srcs, ", "))
	g.line("tl_ewise(%s, %s, %d, t, NT, [&](const double* v) -> double { (void)v; return %s; });", d, so, len(ops), out.code)
}

// bin is one typed arithmetic step (TVM binary typing: a literal takes the
// other operand's type; two floats promote to the wider).
func (g *gen) bin(op string, a, b tval) tval {
	var typ ir.DataType
	switch {
	case a.imm && !b.imm:
		typ = b.typ
	case b.imm && !a.imm:
		typ = a.typ
	case a.typ.IsFloat() && b.typ.IsFloat():
		typ = a.typ
		if b.typ.Bits > a.typ.Bits {
			typ = b.typ
		}
	case b.typ.IsFloat():
		typ = b.typ
	default:
		typ = a.typ
	}
	ac, bc := a.code, b.code
	if a.imm {
		ac = fmt.Sprintf("tl_round(%s, %s)", dtypeEnum(typ), ac)
	}
	if b.imm {
		bc = fmt.Sprintf("tl_round(%s, %s)", dtypeEnum(typ), bc)
	}
	var v string
	switch op {
	case "max":
		if typ.IsFloat() {
			v = "std::fmax(" + ac + ", " + bc + ")"
		} else {
			v = "std::max(" + ac + ", " + bc + ")"
		}
	case "min":
		if typ.IsFloat() {
			v = "std::fmin(" + ac + ", " + bc + ")"
		} else {
			v = "std::min(" + ac + ", " + bc + ")"
		}
	case "/":
		if !typ.IsFloat() {
			v = "std::trunc(" + ac + " / " + bc + ")"
			break
		}
		v = ac + " / " + bc
	default:
		v = ac + " " + op + " " + bc
	}
	return tval{code: fmt.Sprintf("tl_round(%s, %s)", dtypeEnum(typ), v), typ: typ}
}

// exprType is the IR type of a scalar operand.
func exprType(e ir.Expr) ir.DataType {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Type
	case *ir.FloatImm:
		return e.Type
	case *ir.Var:
		return e.Type
	case *ir.Load:
		return e.Buf.Dtype
	case *ir.Call:
		return e.Type
	case *ir.Cast:
		return e.To
	case *ir.Neg:
		return exprType(e.X)
	case *ir.Select:
		return exprType(e.A)
	case *ir.Binary:
		switch e.Op {
		case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or:
			return ir.BoolT
		}
		return binType(e.A, e.B, exprType(e.A), exprType(e.B))
	}
	return ir.Int32
}
