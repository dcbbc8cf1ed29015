package eval

import (
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The expression helpers of tvm/tirx/op.py reached as tvm.tirx.<name> (or
// tvm.tir.<name>): any(*args) and all(*args), the logical or / and of
// conditions, as kernels' own schedulers write valid(). Other names of
// tvm.tirx resolve as before (tvm.tirx.layout is the layout module,
// anything else is opaque).

func tvmTirxAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "any", "all":
		op := ir.Or
		if name == "all" {
			op = ir.And
		}
		return builtin("tvm.tirx."+name, func(ev *evaluator, c *call) Value { return ev.tirxAnyAll(name, op, c) }), true
	}
	return nil, false
}

// tirxAnyAll folds the arguments left to right; Python truth values fold
// statically (any(False, x) is x, any(True, x) is True).
func (ev *evaluator) tirxAnyAll(name string, op ir.BinOp, c *call) Value {
	if len(c.args) == 0 || len(c.kwargs) > 0 {
		return ev.errorf(c.span, CodeType, "tvm.tirx.%s takes one or more conditions", name)
	}
	if e := firstErr(c.args...); e != nil {
		return e
	}
	var acc ir.Expr
	for _, a := range c.args {
		x, ok := a.(*ExprV)
		if !ok {
			if truthy(a) == (op == ir.Or) {
				return &BoolV{base{c.span}, op == ir.Or} // decided
			}
			continue // neutral
		}
		if acc == nil {
			acc = x.E
		} else {
			acc = mkBin(op, acc, x.E, c.span)
		}
	}
	if acc == nil {
		return &BoolV{base{c.span}, op == ir.And}
	}
	return &ExprV{base: base{c.span}, E: acc}
}
