package eval

import (
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

func tirxExprAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	if op, ok := tirxExprBinOps[name]; ok {
		return builtin("T."+name, func(ev *evaluator, c *call) Value { return ev.tirxExprBinary(name, op, c) }), true
	}
	switch name {
	case "Not":
		return builtin("T.Not", (*evaluator).tirxExprNot), true
	case "Cast":
		return builtin("T.Cast", (*evaluator).tirxExprCast), true
	}
	return nil, false
}

// tirxExprBinary is T.<Op>(a, b, span=None).
func (ev *evaluator) tirxExprBinary(name string, op ir.BinOp, c *call) Value {
	if !ev.checkArgs(c, name, 2, "a", "b", "span") {
		return poison(c.span)
	}
	a, b := c.arg(0, "a"), c.arg(1, "b")
	if isErr(a) {
		return ev.needConcrete(a, c.argSpan(0, "a"), "T."+name+"'s a")
	}
	if isErr(b) {
		return ev.needConcrete(b, c.argSpan(1, "b"), "T."+name+"'s b")
	}
	var ae, be ir.Expr
	var ok1, ok2 bool
	if x, ok := a.(*ExprV); ok {
		ae, ok1 = x.E, true
		be, ok2 = ev.toIR(b, exprType(ae))
	} else {
		be, ok2 = ev.toIR(b, ir.DataType{})
		ae, ok1 = ev.toIR(a, exprType(be))
	}
	if !ok1 {
		return ev.errorf(c.argSpan(0, "a"), CodeType, "T.%s expects a scalar expression, got %s", name, describe(a))
	}
	if !ok2 {
		return ev.errorf(c.argSpan(1, "b"), CodeType, "T.%s expects a scalar expression, got %s", name, describe(b))
	}
	if op == ir.And || op == ir.Or {
		// the node itself: mkBin would fold constant integer operands
		return &ExprV{base: base{c.span}, E: &ir.Binary{Op: op, A: ae, B: be, Span: c.span}}
	}
	return &ExprV{base: base{c.span}, E: mkBin(op, ae, be, c.span)}
}

// tirxExprNot is T.Not(a, span=None).
func (ev *evaluator) tirxExprNot(c *call) Value {
	if !ev.checkArgs(c, "Not", 1, "a", "span") {
		return poison(c.span)
	}
	a := c.arg(0, "a")
	if isErr(a) {
		return ev.needConcrete(a, c.argSpan(0, "a"), "T.Not's a")
	}
	e, ok := ev.toIR(a, ir.DataType{})
	if !ok {
		return ev.errorf(c.argSpan(0, "a"), CodeType, "T.Not expects a scalar expression, got %s", describe(a))
	}
	return &ExprV{base: base{c.span}, E: &ir.Not{X: e, Span: c.span}}
}

// tirxExprCast is T.Cast(dtype, value, span=None), the node constructor
// (dtype first, unlike T.cast(value, dtype)).
func (ev *evaluator) tirxExprCast(c *call) Value {
	if !ev.checkArgs(c, "Cast", 2, "dtype", "value", "span") {
		return poison(c.span)
	}
	dt, ok := ev.dtypeOf(c.arg(0, "dtype"), c.argSpan(0, "dtype"))
	if !ok {
		return poison(c.span)
	}
	v := c.arg(1, "value")
	if isErr(v) {
		return ev.needConcrete(v, c.argSpan(1, "value"), "T.Cast's value")
	}
	return ev.castTo(v, dt, c.argSpan(1, "value"), c.span)
}
