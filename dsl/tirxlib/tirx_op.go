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

func tvmTirxAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "any", "all":
		op := ir.Or
		if name == "all" {
			op = ir.And
		}
		return Builtin("tvm.tirx."+name, func(ev *Evaluator, c *Call) Value { return ev.tirxAnyAll(name, op, c) }), true
	}
	return nil, false
}

// tirxAnyAll folds the arguments left to right; Python truth values fold
// statically (any(False, x) is x, any(True, x) is True).
func (ev *Evaluator) tirxAnyAll(name string, op ir.BinOp, c *Call) Value {
	if len(c.Args) == 0 || len(c.Kwargs) > 0 {
		return ev.Errorf(c.At, CodeType, "tvm.tirx.%s takes one or more conditions", name)
	}
	if e := firstErr(c.Args...); e != nil {
		return e
	}
	var acc ir.Expr
	for _, a := range c.Args {
		x, ok := a.(*ExprV)
		if !ok {
			if Truthy(a) == (op == ir.Or) {
				return &BoolV{Base{c.At}, op == ir.Or} // decided
			}
			continue // neutral
		}
		if acc == nil {
			acc = x.E
		} else {
			acc = MkBin(op, acc, x.E, c.At)
		}
	}
	if acc == nil {
		return &BoolV{Base{c.At}, op == ir.And}
	}
	return &ExprV{Base: Base{c.At}, E: acc}
}

// The tvm/tirx/op.py wrappers tvm.script.tirx re-exports as T.<name>:
// filter(var, pred), the thread-set filter escape hatch, a bool call
// tirx.filter the dispatcher narrows by (an elect_sync inside pred makes
// it a lane selector, as TVM's TryPushCanonicalCtx fallback does); and
// the host-side packed-call helpers tvm_stack_alloca(dtype_str, num) (a
// handle) and call_packed(*args) (an int32 call), opaque calls that touch
// no tile call: as statements they stay in the body as Evaluate.
func tirxOpScriptAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "filter":
		if ev.inOldDialect() {
			// the older dialects' filter(var, lo, hi) selection stays
			// opaque (dialect_old.go reports it as not modelled)
			return nil, false
		}
		return Builtin("T.filter", (*Evaluator).tirxFilter), true
	case "tvm_stack_alloca":
		return Builtin("T.tvm_stack_alloca", func(ev *Evaluator, c *Call) Value {
			if !ev.CheckArgs(c, "tvm_stack_alloca", 2, "dtype_str", "num") {
				return Poison(c.At)
			}
			return ev.opaqueIntrin(c, "T.tvm_stack_alloca", "tvm_stack_alloca", ir.HandleT)
		}), true
	case "call_packed", "tvm_call_packed":
		return Builtin("T."+name, func(ev *Evaluator, c *Call) Value {
			for _, k := range c.Kwargs {
				if k.Name != "span" {
					return ev.Errorf(k.At, CodeType, "%s() got an unexpected keyword argument '%s'", name, k.Name)
				}
			}
			return ev.opaqueIntrin(c, "T."+name, "tvm_call_packed", ir.Int32)
		}), true
	}
	return nil, false
}

// tirxFilter is T.filter(var, pred): call_intrin("bool", "tirx.filter",
// var, pred). The legacy three-argument form was removed upstream.
func (ev *Evaluator) tirxFilter(c *Call) Value {
	if len(c.Args) > 2 {
		// span is keyword-only; filter(var, lo, hi) was removed upstream
		return ev.Errorf(c.At, CodeType, "filter() takes 2 positional arguments but %d were given", len(c.Args))
	}
	if !ev.CheckArgs(c, "filter", 2, "var", "pred", "span") {
		return Poison(c.At)
	}
	var args []ir.Expr
	for i, n := range []string{"var", "pred"} {
		v, sp := c.Arg(i, n), c.ArgSpan(i, n)
		if IsErr(v) {
			return ev.NeedConcrete(v, sp, "T.filter's "+n)
		}
		e, ok := ev.ToIR(v, ir.DataType{})
		if !ok {
			return ev.Errorf(sp, CodeType, "T.filter's %s must be a scalar expression, got %s", n, Describe(v))
		}
		args = append(args, e)
	}
	return &ExprV{Base: Base{c.At}, E: &ir.Call{Op: ir.OpFilter, Args: args, Type: ir.BoolT, Span: c.At}}
}

// opaqueIntrin is the call op(args...) of type t over the evaluated
// arguments (strings as StringImm, buffers as their data pointer).
func (ev *Evaluator) opaqueIntrin(c *Call, fname, op string, t ir.DataType) Value {
	var args []ir.Expr
	for i, a := range c.Args {
		sp := c.ArgSpans[i]
		if IsErr(a) {
			return ev.NeedConcrete(a, sp, fname+"'s arguments")
		}
		switch x := a.(type) {
		case *StrV:
			args = append(args, &ir.StringImm{Value: x.V, Span: sp})
		case *BufferV:
			args = append(args, &ir.BufferData{Buf: x.B, Span: sp})
		case *DTypeV:
			args = append(args, &ir.StringImm{Value: x.DT.String(), Span: sp})
		default:
			e, ok := ev.ToIR(a, ir.DataType{})
			if !ok {
				return ev.Errorf(sp, CodeType, "%s argument %d must be a scalar, got %s", fname, i, Describe(a))
			}
			args = append(args, e)
		}
	}
	return &ExprV{Base: Base{c.At}, E: &ir.Call{Op: op, Args: args, Type: t, Span: c.At}}
}
