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

func builderIRAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "wg_reg_tile":
		return Builtin("T.wg_reg_tile", (*Evaluator).tWgRegTile), true
	case "alloc_cast_frag":
		return Builtin("T.alloc_cast_frag", (*Evaluator).tAllocCastFrag), true
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
func (ev *Evaluator) tWgRegTile(c *Call) Value {
	if !ev.RequireKernel(c, "T.wg_reg_tile") || !ev.CheckArgs(c, "wg_reg_tile", 1, "elem_per_thread", "dtype") {
		return Poison(c.At)
	}
	nspan := c.ArgSpan(0, "elem_per_thread")
	n, ok := ev.IntArg(c.Arg(0, "elem_per_thread"), nspan, "elem_per_thread")
	if !ok {
		return Poison(c.At)
	}
	dtype := c.Arg(1, "dtype")
	dspan := c.ArgSpan(1, "dtype")
	if dtype == nil {
		dtype, dspan = &StrV{Base{c.At}, "float32"}, c.At
	}
	lay := ev.newLayoutV(layout.NewTile([]layout.Iter{layout.It(128, 1, layout.TidInWG), layout.It(n, 1, layout.M)}, nil, nil), c.At)
	if IsErr(lay) {
		return lay
	}
	shape := &TupleV{Base{nspan}, []Value{&IntV{Base{nspan}, 128}, &IntV{Base{nspan}, n}}}
	alloc := &Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []Value{shape, dtype},
		ArgSpans: []source.Span{nspan, dspan},
		Kwargs: []Kwarg{{Name: "layout", V: lay, At: c.At, Vspan: c.At},
			{Name: "scope", V: &StrV{Base{c.At}, "local"}, At: c.At, Vspan: c.At}}}
	return ev.tAlloc(alloc, "T.wg_reg_tile", "local")
}

// tAllocCastFrag is T.alloc_cast_frag(src, dtype): a fresh local fragment
// of src's (rows, cols) shape and src's layout with element type dtype, so
// Tx.cast(dst, src) is a per-thread cast. The reference allocates
// rows*cols//128 elements flat and views them with src's layout; as for
// alloc_tcgen05_ldst_frag, tilels allocates the view's shape directly.
func (ev *Evaluator) tAllocCastFrag(c *Call) Value {
	if !ev.RequireKernel(c, "T.alloc_cast_frag") || !ev.CheckArgs(c, "alloc_cast_frag", 2, "src", "dtype") {
		return Poison(c.At)
	}
	src, sspan := c.Arg(0, "src"), c.ArgSpan(0, "src")
	b, ok := src.(*BufferV)
	if !ok {
		if IsErr(src) {
			return ev.NeedConcrete(src, sspan, "T.alloc_cast_frag's src")
		}
		return ev.Errorf(sspan, CodeType, "T.alloc_cast_frag expects a register fragment buffer, got %s", Describe(src))
	}
	if len(b.B.Shape) != 2 {
		// the reference unpacks rows, cols = src.ty.shape
		return ev.Errorf(sspan, CodeType, "T.alloc_cast_frag expects a 2-D fragment, got a %d-D buffer", len(b.B.Shape))
	}
	dt, ok := ev.DtypeOf(c.Arg(1, "dtype"), c.ArgSpan(1, "dtype"))
	if !ok {
		return Poison(c.At)
	}
	rows, cols := b.B.Shape[0], b.B.Shape[1]
	shape := &TupleV{Base{sspan}, []Value{&IntV{Base{sspan}, rows}, &IntV{Base{sspan}, cols}}}
	var lay Value = &NoneV{Base{sspan}}
	if b.B.Layout != nil {
		lay = &LayoutV{Base: Base{sspan}, L: b.B.Layout}
	}
	alloc := &Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []Value{shape, &StrV{Base{c.ArgSpan(1, "dtype")}, dt.String()}},
		ArgSpans: []source.Span{sspan, c.ArgSpan(1, "dtype")},
		Kwargs: []Kwarg{{Name: "layout", V: lay, At: c.At, Vspan: sspan},
			{Name: "scope", V: &StrV{Base{c.At}, "local"}, At: c.At, Vspan: c.At}}}
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
			return MkBin(ir.Mul, x, &ir.IntImm{Value: ci.Value * 8 / bits, Type: ci.Type, Span: span}, span)
		}
	}
	eight := &ir.IntImm{Value: 8, Type: ExprType(e), Span: span}
	return MkBin(ir.FloorDiv, MkBin(ir.Mul, e, eight, span), &ir.IntImm{Value: bits, Type: ExprType(e), Span: span}, span)
}
