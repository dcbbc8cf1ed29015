package eval

import (
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Register-fragment allocators of tvm/tirx/script/builder/ir.py reached as
// T.<name> (tvm.script.tirx): wg_reg_tile(elem_per_thread, dtype="float32")
// and alloc_cast_frag(src, dtype). The expression constructors the same
// module re-exports from tvm.tirx.expr are in lib_tirx_expr.go; the
// tvm.tirx.op wrappers (filter, tvm_stack_alloca, call_packed) in
// lib_tirx_op.go.

func builderIRAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "wg_reg_tile":
		return builtin("T.wg_reg_tile", (*evaluator).tWgRegTile), true
	case "alloc_cast_frag":
		return builtin("T.alloc_cast_frag", (*evaluator).tAllocCastFrag), true
	}
	if v, ok := tirxExprAttr(ev, name, span); ok {
		return v, true
	}
	return tirxOpScriptAttr(ev, name, span)
}

// tWgRegTile is T.wg_reg_tile(elem_per_thread, dtype="float32"): the
// reference's alloc_buffer((128, elem_per_thread), dtype,
// layout=wg_local_layout(elem_per_thread), scope="local"), one row of
// elem_per_thread contiguous elements per warpgroup thread.
func (ev *evaluator) tWgRegTile(c *call) Value {
	if !ev.requireKernel(c, "T.wg_reg_tile") || !ev.checkArgs(c, "wg_reg_tile", 1, "elem_per_thread", "dtype") {
		return poison(c.span)
	}
	nspan := c.argSpan(0, "elem_per_thread")
	n, ok := ev.intArg(c.arg(0, "elem_per_thread"), nspan, "elem_per_thread")
	if !ok {
		return poison(c.span)
	}
	dtype := c.arg(1, "dtype")
	dspan := c.argSpan(1, "dtype")
	if dtype == nil {
		dtype, dspan = &StrV{base{c.span}, "float32"}, c.span
	}
	lay := ev.newLayoutV(layout.NewTile([]layout.Iter{layout.It(128, 1, layout.TidInWG), layout.It(n, 1, layout.M)}, nil, nil), c.span)
	if isErr(lay) {
		return lay
	}
	shape := &TupleV{base{nspan}, []Value{&IntV{base{nspan}, 128}, &IntV{base{nspan}, n}}}
	alloc := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{shape, dtype},
		argSpans: []source.Span{nspan, dspan},
		kwargs: []kwarg{{name: "layout", v: lay, span: c.span, vspan: c.span},
			{name: "scope", v: &StrV{base{c.span}, "local"}, span: c.span, vspan: c.span}}}
	return ev.tAlloc(alloc, "T.wg_reg_tile", "local")
}

// tAllocCastFrag is T.alloc_cast_frag(src, dtype): a fresh local fragment
// of src's (rows, cols) shape and src's layout with element type dtype, so
// Tx.cast(dst, src) is a per-thread cast. The reference allocates
// rows*cols//128 elements flat and views them with src's layout; as for
// alloc_tcgen05_ldst_frag, tilels allocates the view's shape directly.
func (ev *evaluator) tAllocCastFrag(c *call) Value {
	if !ev.requireKernel(c, "T.alloc_cast_frag") || !ev.checkArgs(c, "alloc_cast_frag", 2, "src", "dtype") {
		return poison(c.span)
	}
	src, sspan := c.arg(0, "src"), c.argSpan(0, "src")
	b, ok := src.(*BufferV)
	if !ok {
		if isErr(src) {
			return ev.needConcrete(src, sspan, "T.alloc_cast_frag's src")
		}
		return ev.errorf(sspan, CodeType, "T.alloc_cast_frag expects a register fragment buffer, got %s", describe(src))
	}
	if len(b.B.Shape) != 2 {
		// the reference unpacks rows, cols = src.ty.shape
		return ev.errorf(sspan, CodeType, "T.alloc_cast_frag expects a 2-D fragment, got a %d-D buffer", len(b.B.Shape))
	}
	dt, ok := ev.dtypeOf(c.arg(1, "dtype"), c.argSpan(1, "dtype"))
	if !ok {
		return poison(c.span)
	}
	rows, cols := b.B.Shape[0], b.B.Shape[1]
	shape := &TupleV{base{sspan}, []Value{&IntV{base{sspan}, rows}, &IntV{base{sspan}, cols}}}
	var lay Value = &NoneV{base{sspan}}
	if b.B.Layout != nil {
		lay = &LayoutV{base: base{sspan}, L: b.B.Layout}
	}
	alloc := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{shape, &StrV{base{c.argSpan(1, "dtype")}, dt.String()}},
		argSpans: []source.Span{sspan, c.argSpan(1, "dtype")},
		kwargs: []kwarg{{name: "layout", v: lay, span: c.span, vspan: sspan},
			{name: "scope", v: &StrV{base{c.span}, "local"}, span: c.span, vspan: c.span}}}
	return ev.tAlloc(alloc, "T.alloc_cast_frag", "local")
}

// dynamicOffset is the device expression of a decl_buffer view's
// elem_offset= or byte_offset= (a loop variable's multiple), nil when the
// value is static or not an expression.
func dynamicOffset(v Value) ir.Expr {
	x, ok := v.(*ExprV)
	if !ok {
		return nil
	}
	if _, static := x.E.(*ir.IntImm); static {
		return nil
	}
	return x.E
}

// byteToElemOffset is the reference's _get_elem_offset for a symbolic
// byte_offset: byte_offset * 8 // bits, written x * (c * 8 / bits) when the
// offset is x * c with c * 8 a multiple of the element size.
func byteToElemOffset(e ir.Expr, dt ir.DataType, span source.Span) ir.Expr {
	bits := int64(dt.Bits)
	if b, ok := e.(*ir.Binary); ok && b.Op == ir.Mul {
		x, c := b.A, b.B
		if _, ok := x.(*ir.IntImm); ok {
			x, c = c, x
		}
		if ci, ok := c.(*ir.IntImm); ok && ci.Value*8%bits == 0 {
			return mkBin(ir.Mul, x, &ir.IntImm{Value: ci.Value * 8 / bits, Type: ci.Type, Span: span}, span)
		}
	}
	eight := &ir.IntImm{Value: 8, Type: exprType(e), Span: span}
	return mkBin(ir.FloorDiv, mkBin(ir.Mul, e, eight, span), &ir.IntImm{Value: bits, Type: exprType(e), Span: span}, span)
}
