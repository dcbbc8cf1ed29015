package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The expression node constructors of tvm/tirx/expr.py that
// tvm.script.tirx re-exports (T.And(a, b), T.Or, T.Not(a), T.Cast(dtype,
// value), T.Add, T.Sub, T.Mul, T.FloorDiv, T.FloorMod, T.Min, T.Max and
// the comparisons T.EQ ... T.GE). Each builds the node it names: Python
// operands become constants of the other operand's dtype, and a condition
// built from Python booleans stays a device expression (T.And(True, x) is
// And(True, x), never folded to a Python value), so `if T.And(...)` keeps
// both branches as TVMScript does. T.Select is T.if_then_else (tir.go).
// Div, Mod (truncating on integers) and Let are not modelled.

var tirxExprBinOps = map[string]ir.BinOp{
	"Add": ir.Add, "Sub": ir.Sub, "Mul": ir.Mul, "FloorDiv": ir.FloorDiv, "FloorMod": ir.FloorMod,
	"Min": ir.Min, "Max": ir.Max, "EQ": ir.EQ, "NE": ir.NE, "LT": ir.LT, "LE": ir.LE, "GT": ir.GT, "GE": ir.GE,
	"And": ir.And, "Or": ir.Or,
}

func tirxExprAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if op, ok := tirxExprBinOps[name]; ok {
		return eval.Builtin("T."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tirxExprBinary(ev, name, op, c) }), true
	}
	switch name {
	case "Not":
		return eval.Builtin("T.Not", tirxExprNot), true
	case "Cast":
		return eval.Builtin("T.Cast", tirxExprCast), true
	}
	return nil, false
}

// tirxExprBinary is T.<Op>(a, b, span=None).
func tirxExprBinary(ev *eval.Evaluator, name string, op ir.BinOp, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, name, 2, "a", "b", "span") {
		return eval.Poison(c.At)
	}
	a, b := c.Arg(0, "a"), c.Arg(1, "b")
	if eval.IsErr(a) {
		return ev.NeedConcrete(a, c.ArgSpan(0, "a"), "T."+name+"'s a")
	}
	if eval.IsErr(b) {
		return ev.NeedConcrete(b, c.ArgSpan(1, "b"), "T."+name+"'s b")
	}
	var ae, be ir.Expr
	var ok1, ok2 bool
	if x, ok := a.(*eval.ExprV); ok {
		ae, ok1 = x.E, true
		be, ok2 = ev.ToIR(b, eval.ExprType(ae))
	} else {
		be, ok2 = ev.ToIR(b, ir.DataType{})
		ae, ok1 = ev.ToIR(a, eval.ExprType(be))
	}
	if !ok1 {
		return ev.Errorf(c.ArgSpan(0, "a"), eval.CodeType, "T.%s expects a scalar expression, got %s", name, eval.Describe(a))
	}
	if !ok2 {
		return ev.Errorf(c.ArgSpan(1, "b"), eval.CodeType, "T.%s expects a scalar expression, got %s", name, eval.Describe(b))
	}
	if op == ir.And || op == ir.Or {
		// the node itself: mkBin would fold constant integer operands
		return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Binary{Op: op, A: ae, B: be, Span: c.At}}
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: eval.MkBin(op, ae, be, c.At)}
}

// tirxExprNot is T.Not(a, span=None).
func tirxExprNot(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "Not", 1, "a", "span") {
		return eval.Poison(c.At)
	}
	a := c.Arg(0, "a")
	if eval.IsErr(a) {
		return ev.NeedConcrete(a, c.ArgSpan(0, "a"), "T.Not's a")
	}
	e, ok := ev.ToIR(a, ir.DataType{})
	if !ok {
		return ev.Errorf(c.ArgSpan(0, "a"), eval.CodeType, "T.Not expects a scalar expression, got %s", eval.Describe(a))
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Not{X: e, Span: c.At}}
}

// tirxExprCast is T.Cast(dtype, value, span=None), the node constructor
// (dtype first, unlike T.cast(value, dtype)).
func tirxExprCast(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "Cast", 2, "dtype", "value", "span") {
		return eval.Poison(c.At)
	}
	dt, ok := ev.DtypeOf(c.Arg(0, "dtype"), c.ArgSpan(0, "dtype"))
	if !ok {
		return eval.Poison(c.At)
	}
	v := c.Arg(1, "value")
	if eval.IsErr(v) {
		return ev.NeedConcrete(v, c.ArgSpan(1, "value"), "T.Cast's value")
	}
	return ev.CastTo(v, dt, c.ArgSpan(1, "value"), c.At)
}
