package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// A view whose layout has runtime strides: FlashMLA's combine kernel
// (sparse_decode_head64.py) reads its split LSEs through
//
//	g_lse_accum = T.decl_buffer((max_splits, 8), "float32", data=lse_accum.data,
//	    elem_offset=off, layout=TileLayout(S[(max_splits, 8) : (stride_lse_accum_split, 1)]))
//
// and `g_lse_accum[split_idx, warp_idx]`. TVM flattens such an access to
// one element at off + Σ index·stride of the storage (FlattenBuffer).
// tilels' layouts take static strides, so the view is a one-dimensional
// view of the storage (its extent the span the strides reach, 1 + Σ
// (extent-1)·stride, a runtime value) and a stridedViewV that turns each
// element load or store into that view's element at Σ index·stride. What
// needs the layout itself (a slice, a tile call, a further view) is not
// modelled and says so.

// stridedViewV is a view with runtime strides over its flat storage view.
type stridedViewV struct {
	eval.Base
	flat    *ir.Buffer // the one-dimensional view of the storage
	shape   []int64
	strides []ir.Expr
	name    string
}

func (*stridedViewV) TypeName() string { return "Buffer" }

// declStridedView is T.decl_buffer(shape, ..., data=..., layout=l) for a
// layout with runtime strides: ok false when the shape is not l's (the
// static path then reports the layout).
func declStridedView(ev *eval.Evaluator, c *eval.Call, l *RuntimeLayoutV) (eval.Value, bool) {
	shape, ok := ev.ShapeArg(c.Arg(0, "shape"), c.ArgSpan(0, "shape"))
	if !ok || len(shape) != len(l.Extents) {
		return nil, false
	}
	for i, n := range shape {
		if n != l.Extents[i] {
			return nil, false
		}
	}
	var span ir.Expr = ir.Const(1)
	for i, n := range shape {
		span = ir.AddE(span, ir.MulE(ir.Const(n-1), l.Strides[i]))
	}
	span = ir.SimplifyIndex(span)
	// the call with the flat shape and no layout= (declBuffer builds the
	// view of the storage, elem_offset= and scope= included)
	flat := *c
	flat.Args = append([]eval.Value(nil), c.Args...)
	flat.Kwargs = nil
	flatShape := &eval.TupleV{Base: eval.Base{At: c.ArgSpan(0, "shape")}, Elts: []eval.Value{&eval.ExprV{Base: eval.Base{At: c.ArgSpan(0, "shape")}, E: span}}}
	if len(flat.Args) > 0 {
		flat.Args[0] = flatShape
	}
	for _, k := range c.Kwargs {
		switch k.Name {
		case "layout":
			continue
		case "shape":
			k.V = flatShape
		}
		flat.Kwargs = append(flat.Kwargs, k)
	}
	if len(flat.Args) > 9 {
		flat.Args = flat.Args[:9] // (layout= positional: dropped; allocated_addr is not a view's)
	}
	v := tDeclBuffer(ev, &flat)
	bv, ok := v.(*eval.BufferV)
	if !ok {
		return v, true
	}
	return &stridedViewV{Base: eval.Base{At: c.At}, flat: bv.B, shape: shape, strides: l.Strides, name: bv.B.Name}, true
}

// offset is the flat element index of idx, or why not.
func (s *stridedViewV) offset(ev *eval.Evaluator, idx []eval.Value) (ir.Expr, string) {
	if len(idx) == 1 && eval.IsSeq(idx[0]) {
		idx = eval.SeqElts(idx[0])
	}
	if len(idx) != len(s.shape) {
		return nil, "an index of another rank"
	}
	var off ir.Expr = ir.Const(0)
	for i, x := range idx {
		e, ok := ev.IndexExpr(x)
		if !ok {
			return nil, "a slice"
		}
		off = ir.AddE(off, ir.MulE(e, s.strides[i]))
	}
	return ir.SimplifyIndex(off), ""
}

// LibIndex implements eval.SubscriptValue: an element load.
func (s *stridedViewV) LibIndex(ev *eval.Evaluator, idx []eval.Value, e *syntax.Subscript) eval.Value {
	if x := eval.FirstErr(idx...); x != nil {
		return ev.NeedConcrete(x, x.Span(), "a buffer index")
	}
	off, why := s.offset(ev, idx)
	if off == nil {
		return s.unmodelled(e.Loc, why)
	}
	return &eval.ExprV{Base: eval.Base{At: e.Loc}, E: &ir.Load{Buf: s.flat, Indices: []ir.Expr{off}, Span: e.Loc}}
}

// LibSetIndex implements eval.StoreValue: an element store.
func (s *stridedViewV) LibSetIndex(ev *eval.Evaluator, idx []eval.Value, v eval.Value, vspan source.Span, e *syntax.Subscript) {
	if x := eval.FirstErr(append([]eval.Value{v}, idx...)...); x != nil {
		ev.NeedConcrete(x, x.Span(), "a buffer store")
		return
	}
	off, why := s.offset(ev, idx)
	if off == nil {
		ev.Warnf(e.Loc, eval.CodeUnresolved, "not modelled: a store into %s of `%s`, a view with runtime strides (only its elements are modelled)", why, s.name)
		return
	}
	val, ok := ev.ToIR(v, s.flat.Dtype)
	if !ok {
		ev.Errorf(vspan, eval.CodeType, "cannot store %s in `%s`", eval.Describe(v), s.name)
		return
	}
	ev.EmitStmt(&ir.Store{Buf: s.flat, Indices: []ir.Expr{off}, Value: val, Span: source.Join(e.Loc, vspan)})
}

// LibAttr implements eval.AttrValue: its data, shape and dtype; any other
// attribute (a view, ptr_to, its layout) is not modelled.
func (s *stridedViewV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	switch name {
	case "data":
		return &eval.ExprV{Base: eval.Base{At: span}, E: &ir.BufferData{Buf: s.flat, Span: span}}
	case "shape":
		out := make([]eval.Value, len(s.shape))
		for i, n := range s.shape {
			out[i] = &eval.IntV{Base: eval.Base{At: span}, V: n}
		}
		return &eval.TupleV{Base: eval.Base{At: span}, Elts: out}
	case "dtype":
		return &eval.StrV{Base: eval.Base{At: span}, V: s.flat.Dtype.String()}
	}
	return s.unmodelled(span, "its "+name)
}

func (s *stridedViewV) unmodelled(at source.Span, what string) eval.Value {
	return &eval.OpaqueV{Base: eval.Base{At: at}, Path: what + " of " + s.name + " (a view with runtime strides: only its elements are modelled)"}
}
