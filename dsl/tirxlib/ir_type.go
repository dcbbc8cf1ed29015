package eval

import (
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
func irAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	if name == "type" {
		return ev.module(irTypePath, span), true
	}
	return irTypeAttr(ev, name, span)
}

func irTypeAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "PrimType":
		return builtin("PrimType", func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "PrimType", 1, "dtype", "span") {
				return poison(c.span)
			}
			if s, ok := c.args[0].(*StrV); ok && s.V == "void" {
				// void: only a pointer's element type; typed as a handle.
				return &DTypeV{base: base{c.span}, DT: ir.HandleT}
			}
			dt, ok := ev.dtypeOf(c.args[0], c.argSpans[0])
			if !ok {
				return poison(c.span)
			}
			return &DTypeV{base: base{c.span}, DT: dt}
		}), true
	case "PointerType":
		return builtin("PointerType", func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "PointerType", 1, "element_type", "storage_scope") {
				return poison(c.span)
			}
			if isErr(c.args[0]) {
				return c.args[0]
			}
			if _, ok := ev.dtypeOf(c.args[0], c.argSpans[0]); !ok {
				return poison(c.span)
			}
			return &DTypeV{base: base{c.span}, DT: ir.HandleT}
		}), true
	}
	return nil, false
}
