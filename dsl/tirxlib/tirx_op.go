package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The expression helpers of tvm/tirx/op.py reached as tvm.tirx.<name> (or
// tvm.tir.<name>): any(*args) and all(*args), the logical or / and of
// conditions, as kernels' own schedulers write valid(). Other names of
// tvm.tirx resolve as before (tvm.tirx.layout is the layout module,
// anything else is opaque).

func tvmTirxAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "any", "all":
		op := ir.Or
		if name == "all" {
			op = ir.And
		}
		return eval.Builtin("tvm.tirx."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tirxAnyAll(ev, name, op, c) }), true
	}
	return nil, false
}

// tirxAnyAll folds the arguments left to right; Python truth values fold
// statically (any(False, x) is x, any(True, x) is True).
func tirxAnyAll(ev *eval.Evaluator, name string, op ir.BinOp, c *eval.Call) eval.Value {
	if len(c.Args) == 0 || len(c.Kwargs) > 0 {
		return ev.Errorf(c.At, eval.CodeType, "tvm.tirx.%s takes one or more conditions", name)
	}
	if e := eval.FirstErr(c.Args...); e != nil {
		return e
	}
	var acc ir.Expr
	for _, a := range c.Args {
		x, ok := a.(*eval.ExprV)
		if !ok {
			if eval.Truthy(a) == (op == ir.Or) {
				return &eval.BoolV{Base: eval.Base{At: c.At}, V: op == ir.Or} // decided
			}
			continue // neutral
		}
		if acc == nil {
			acc = x.E
		} else {
			acc = eval.MkBin(op, acc, x.E, c.At)
		}
	}
	if acc == nil {
		return &eval.BoolV{Base: eval.Base{At: c.At}, V: op == ir.And}
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: acc}
}

// The tvm/tirx/op.py wrappers tvm.script.tirx re-exports as T.<name>:
// filter(var, pred), the thread-set filter escape hatch, a bool call
// tirx.filter the dispatcher narrows by (an elect_sync inside pred makes
// it a lane selector, as TVM's TryPushCanonicalCtx fallback does); and
// the host-side packed-call helpers tvm_stack_alloca(dtype_str, num) (a
// handle) and call_packed(*args) (an int32 call), opaque calls that touch
// no tile call: as statements they stay in the body as Evaluate.
func tirxOpScriptAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "filter":
		if ev.InOldDialect() {
			// the older dialects' filter(var, lo, hi) selection stays
			// opaque (dialect_old.go reports it as not modelled)
			return nil, false
		}
		return eval.Builtin("T.filter", tirxFilter), true
	case "tvm_stack_alloca":
		return eval.Builtin("T.tvm_stack_alloca", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "tvm_stack_alloca", 2, "dtype_str", "num") {
				return eval.Poison(c.At)
			}
			return opaqueIntrin(ev, c, "T.tvm_stack_alloca", "tvm_stack_alloca", ir.HandleT)
		}), true
	case "call_packed", "tvm_call_packed":
		return eval.Builtin("T."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			for _, k := range c.Kwargs {
				if k.Name != "span" {
					return ev.Errorf(k.At, eval.CodeType, "%s() got an unexpected keyword argument '%s'", name, k.Name)
				}
			}
			noteHostMap(ev, c) // (host_tensormap.go)
			return opaqueIntrin(ev, c, "T."+name, "tvm_call_packed", ir.Int32)
		}), true
	}
	return nil, false
}

// tirxFilter is T.filter(var, pred): call_intrin("bool", "tirx.filter",
// var, pred). The legacy three-argument form was removed upstream.
func tirxFilter(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if len(c.Args) > 2 {
		// span is keyword-only; filter(var, lo, hi) was removed upstream
		return ev.Errorf(c.At, eval.CodeType, "filter() takes 2 positional arguments but %d were given", len(c.Args))
	}
	if !ev.CheckArgs(c, "filter", 2, "var", "pred", "span") {
		return eval.Poison(c.At)
	}
	var args []ir.Expr
	for i, n := range []string{"var", "pred"} {
		v, sp := c.Arg(i, n), c.ArgSpan(i, n)
		if eval.IsErr(v) {
			return ev.NeedConcrete(v, sp, "T.filter's "+n)
		}
		e, ok := ev.ToIR(v, ir.DataType{})
		if !ok {
			return ev.Errorf(sp, eval.CodeType, "T.filter's %s must be a scalar expression, got %s", n, eval.Describe(v))
		}
		args = append(args, e)
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: ir.OpFilter, Args: args, Type: ir.BoolT, Span: c.At}}
}

// opaqueIntrin is the call op(args...) of type t over the evaluated
// arguments (strings as StringImm, buffers as their data pointer).
func opaqueIntrin(ev *eval.Evaluator, c *eval.Call, fname, op string, t ir.DataType) eval.Value {
	var args []ir.Expr
	for i, a := range c.Args {
		sp := c.ArgSpans[i]
		if eval.IsErr(a) {
			return ev.NeedConcrete(a, sp, fname+"'s arguments")
		}
		switch x := a.(type) {
		case *eval.StrV:
			args = append(args, &ir.StringImm{Value: x.V, Span: sp})
		case *eval.BufferV:
			args = append(args, &ir.BufferData{Buf: x.B, Span: sp})
		case *eval.DTypeV:
			args = append(args, &ir.StringImm{Value: x.DT.String(), Span: sp})
		default:
			e, ok := ev.ToIR(a, ir.DataType{})
			if !ok {
				return ev.Errorf(sp, eval.CodeType, "%s argument %d must be a scalar, got %s", fname, i, eval.Describe(a))
			}
			args = append(args, e)
		}
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: op, Args: args, Type: t, Span: c.At}}
}
