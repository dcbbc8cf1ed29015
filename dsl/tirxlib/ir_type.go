package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// tvm.ir.type (also reached as tvm.ir): PrimType(dtype) is that scalar type and PointerType(elem,
// storage_scope="") a pointer, which tilels types as a handle (what
// T.reinterpret's dtype and T.Var's ty= need); the element type and the
// storage scope are not kept.

const irTypePath = "tvm.ir.type"

// irAttr is the tvm.ir module: its type submodule and the two types it
// re-exports.
func irAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if name == "type" {
		return ev.Module(irTypePath, span), true
	}
	return irTypeAttr(ev, name, span)
}

func irTypeAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "PrimType":
		return eval.Builtin("PrimType", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "PrimType", 1, "dtype", "span") {
				return eval.Poison(c.At)
			}
			if s, ok := c.Args[0].(*eval.StrV); ok && s.V == "void" {
				// void: only a pointer's element type; typed as a handle.
				return &eval.DTypeV{Base: eval.Base{At: c.At}, DT: ir.HandleT}
			}
			dt, ok := ev.DtypeOf(c.Args[0], c.ArgSpans[0])
			if !ok {
				return eval.Poison(c.At)
			}
			return &eval.DTypeV{Base: eval.Base{At: c.At}, DT: dt}
		}), true
	case "PointerType":
		return eval.Builtin("PointerType", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "PointerType", 1, "element_type", "storage_scope") {
				return eval.Poison(c.At)
			}
			if eval.IsErr(c.Args[0]) {
				return c.Args[0]
			}
			if _, ok := ev.DtypeOf(c.Args[0], c.ArgSpans[0]); !ok {
				return eval.Poison(c.At)
			}
			return &eval.DTypeV{Base: eval.Base{At: c.At}, DT: ir.HandleT}
		}), true
	}
	return nil, false
}
