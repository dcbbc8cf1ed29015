package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Register-fragment allocators of tvm/tirx/script/builder/ir.py reached as
// T.<name> (tvm.script.tirx): wg_reg_tile(elem_per_thread, dtype="float32")
// and alloc_cast_frag(src, dtype). The expression constructors the same
// module re-exports from tvm.tirx.expr are in tirx_expr.go; the
// tvm.tirx.op wrappers (filter, tvm_stack_alloca, call_packed) in
// tirx_op.go.

func builderIRAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "wg_reg_tile":
		return eval.Builtin("T.wg_reg_tile", tWgRegTile), true
	case "alloc_cast_frag":
		return eval.Builtin("T.alloc_cast_frag", tAllocCastFrag), true
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
func tWgRegTile(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.wg_reg_tile") || !ev.CheckArgs(c, "wg_reg_tile", 1, "elem_per_thread", "dtype") {
		return eval.Poison(c.At)
	}
	nspan := c.ArgSpan(0, "elem_per_thread")
	n, ok := ev.IntArg(c.Arg(0, "elem_per_thread"), nspan, "elem_per_thread")
	if !ok {
		return eval.Poison(c.At)
	}
	dtype := c.Arg(1, "dtype")
	dspan := c.ArgSpan(1, "dtype")
	if dtype == nil {
		dtype, dspan = &eval.StrV{Base: eval.Base{At: c.At}, V: "float32"}, c.At
	}
	lay := newLayoutV(ev, layout.NewTile([]layout.Iter{layout.It(128, 1, layout.TidInWG), layout.It(n, 1, layout.M)}, nil, nil), c.At)
	if eval.IsErr(lay) {
		return lay
	}
	shape := &eval.TupleV{Base: eval.Base{At: nspan}, Elts: []eval.Value{&eval.IntV{Base: eval.Base{At: nspan}, V: 128}, &eval.IntV{Base: eval.Base{At: nspan}, V: n}}}
	alloc := &eval.Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []eval.Value{shape, dtype},
		ArgSpans: []source.Span{nspan, dspan},
		Kwargs: []eval.Kwarg{{Name: "layout", V: lay, At: c.At, Vspan: c.At},
			{Name: "scope", V: &eval.StrV{Base: eval.Base{At: c.At}, V: "local"}, At: c.At, Vspan: c.At}}}
	return TAlloc(ev, alloc, "T.wg_reg_tile", "local")
}

// tAllocCastFrag is T.alloc_cast_frag(src, dtype): a fresh local fragment
// of src's (rows, cols) shape and src's layout with element type dtype, so
// Tx.cast(dst, src) is a per-thread cast. The reference allocates
// rows*cols//128 elements flat and views them with src's layout; as for
// alloc_tcgen05_ldst_frag, tilels allocates the view's shape directly.
func tAllocCastFrag(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.alloc_cast_frag") || !ev.CheckArgs(c, "alloc_cast_frag", 2, "src", "dtype") {
		return eval.Poison(c.At)
	}
	src, sspan := c.Arg(0, "src"), c.ArgSpan(0, "src")
	b, ok := src.(*eval.BufferV)
	if !ok {
		if eval.IsErr(src) {
			return ev.NeedConcrete(src, sspan, "T.alloc_cast_frag's src")
		}
		return ev.Errorf(sspan, eval.CodeType, "T.alloc_cast_frag expects a register fragment buffer, got %s", eval.Describe(src))
	}
	if len(b.B.Shape) != 2 {
		// the reference unpacks rows, cols = src.ty.shape
		return ev.Errorf(sspan, eval.CodeType, "T.alloc_cast_frag expects a 2-D fragment, got a %d-D buffer", len(b.B.Shape))
	}
	dt, ok := ev.DtypeOf(c.Arg(1, "dtype"), c.ArgSpan(1, "dtype"))
	if !ok {
		return eval.Poison(c.At)
	}
	rows, cols := b.B.Shape[0], b.B.Shape[1]
	shape := &eval.TupleV{Base: eval.Base{At: sspan}, Elts: []eval.Value{&eval.IntV{Base: eval.Base{At: sspan}, V: rows}, &eval.IntV{Base: eval.Base{At: sspan}, V: cols}}}
	var lay eval.Value = &eval.NoneV{Base: eval.Base{At: sspan}}
	if b.B.Layout != nil {
		lay = &eval.LayoutV{Base: eval.Base{At: sspan}, L: b.B.Layout}
	}
	alloc := &eval.Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []eval.Value{shape, &eval.StrV{Base: eval.Base{At: c.ArgSpan(1, "dtype")}, V: dt.String()}},
		ArgSpans: []source.Span{sspan, c.ArgSpan(1, "dtype")},
		Kwargs: []eval.Kwarg{{Name: "layout", V: lay, At: c.At, Vspan: sspan},
			{Name: "scope", V: &eval.StrV{Base: eval.Base{At: c.At}, V: "local"}, At: c.At, Vspan: c.At}}}
	return TAlloc(ev, alloc, "T.alloc_cast_frag", "local")
}

// dynamicOffset is the device expression of a decl_buffer view's
// elem_offset= or byte_offset= (a loop variable's multiple), nil when the
// value is static or not an expression.
func dynamicOffset(v eval.Value) ir.Expr {
	x, ok := v.(*eval.ExprV)
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
			return eval.MkBin(ir.Mul, x, &ir.IntImm{Value: ci.Value * 8 / bits, Type: ci.Type, Span: span}, span)
		}
	}
	eight := &ir.IntImm{Value: 8, Type: eval.ExprType(e), Span: span}
	return eval.MkBin(ir.FloorDiv, eval.MkBin(ir.Mul, e, eight, span), &ir.IntImm{Value: bits, Type: eval.ExprType(e), Span: span}, span)
}
