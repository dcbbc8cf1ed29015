package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// tvm.script.ir_builder's IRBuilder, the part kernels call while they are
// parsed: IRBuilder.name(s, v) and IRBuilder.name_many(names, values)
// (static; also through IRBuilder.current()) set the name of an IR object
// and return it (ir_builder/base.py: IRBuilderName). A buffer or a
// variable takes the name, as TVM's printed and generated code then shows
// it; any other value is returned as it is. allgather_gemm.py's scheduler
// names its packed_value buffer so. Everything else of IRBuilder (building
// IR by hand) stays opaque.

const irBuilderPath = "tvm.script.ir_builder"

func irBuilderAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if name != "IRBuilder" {
		return nil, false
	}
	return &irBuilderV{Base: eval.Base{At: span}}, true
}

// irBuilderV is the IRBuilder class, or IRBuilder.current() (the same
// methods are modelled on both).
type irBuilderV struct{ eval.Base }

func (*irBuilderV) TypeName() string { return "IRBuilder" }

// LibAttr implements eval.AttrValue.
func (b *irBuilderV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	switch name {
	case "current":
		return eval.Builtin("IRBuilder.current", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "current", 0) {
				return eval.Poison(c.At)
			}
			return &irBuilderV{Base: eval.Base{At: c.At}}
		})
	case "name":
		return eval.Builtin("IRBuilder.name", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "name", 2, "s", "v") {
				return eval.Poison(c.At)
			}
			return irName(ev, c.Arg(0, "s"), c.Arg(1, "v"), c.ArgSpan(0, "s"))
		})
	case "name_many":
		return eval.Builtin("IRBuilder.name_many", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "name_many", 2, "s", "vs") {
				return eval.Poison(c.At)
			}
			names, vals := c.Arg(0, "s"), c.Arg(1, "vs")
			if !eval.IsSeq(names) || !eval.IsSeq(vals) {
				return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "IRBuilder.name_many(...)"}
			}
			ns, vs := eval.SeqElts(names), eval.SeqElts(vals)
			if len(ns) != len(vs) {
				return ev.PyErrorf(c.At, "AssertionError")
			}
			out := make([]eval.Value, len(vs))
			for i := range vs {
				out[i] = irName(ev, ns[i], vs[i], c.ArgSpan(0, "s"))
			}
			return &eval.ListV{Base: eval.Base{At: c.At}, Elts: out}
		})
	}
	return &eval.OpaqueV{Base: eval.Base{At: span}, Path: irBuilderPath + ".IRBuilder." + name}
}

// irName gives v the name s where v is a buffer or a variable, and
// returns v.
func irName(ev *eval.Evaluator, s, v eval.Value, at source.Span) eval.Value {
	str, ok := s.(*eval.StrV)
	if !ok {
		if eval.IsErr(s) {
			return v
		}
		return ev.Errorf(at, eval.CodeType, "IRBuilder.name expects a str name, got %s", eval.Describe(s))
	}
	switch x := v.(type) {
	case *eval.BufferV:
		if x.B != nil {
			x.B.Name = str.V
		}
	case *eval.ExprV:
		if vr, ok := x.E.(*ir.Var); ok {
			vr.Name = str.V
		}
	}
	return v
}
