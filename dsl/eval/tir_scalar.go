package eval

import (
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// tDeclScalar is T.decl_scalar(dtype, data, scope, elem_offset=None,
// byte_offset=None) (tvm/tirx/script/builder/ir.py): a (1,)-element
// decl_buffer over data with layout TileLayout(S[1]), read as its element
// 0. The buffer is declared like T.decl_buffer's; the value is the load of
// its element, what the kernel reads and takes the address of.
func (ev *evaluator) tDeclScalar(c *call) Value {
	if !ev.requireKernel(c, "T.decl_scalar") ||
		!ev.checkArgs(c, "decl_scalar", 3, "dtype", "data", "scope", "elem_offset", "byte_offset") {
		return poison(c.span)
	}
	one := &TupleV{base{c.span}, []Value{&IntV{base{c.span}, 1}}}
	decl := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{one, c.args[0], c.args[1]},
		argSpans: []source.Span{c.span, c.argSpans[0], c.argSpans[1]},
		kwargs: []kwarg{{"scope", c.args[2], c.argSpans[2], c.argSpans[2]},
			{"layout", &LayoutV{base: base{c.span}, L: layout.NewTile([]layout.Iter{layout.It(1, 1, layout.M)}, nil, nil)}, c.span, c.span}}}
	for i, name := range []string{"elem_offset", "byte_offset"} {
		if v := c.arg(3+i, name); v != nil {
			decl.kwargs = append(decl.kwargs, kwarg{name, v, c.argSpan(3+i, name), c.argSpan(3+i, name)})
		}
	}
	b, ok := ev.tDeclBuffer(decl).(*BufferV)
	if !ok {
		return poison(c.span)
	}
	return &ExprV{base: base{c.span}, E: &ir.Load{Buf: b.B, Indices: []ir.Expr{ir.Const(0)}, Span: c.span}, scalar: true}
}

// tAllocScalar is T.alloc_scalar(dtype="float32", scope="global") and its
// T.local_scalar / T.shared_scalar(dtype="float32") spellings: a (1,)
// buffer with layout TileLayout(S[1]), read as its element 0.
func (ev *evaluator) tAllocScalar(c *call, fname, fixedScope string) Value {
	params := []string{"dtype", "scope"}
	if fixedScope != "" {
		params = params[:1]
	}
	if !ev.requireKernel(c, fname) || !ev.checkArgs(c, fname[2:], 0, params...) {
		return poison(c.span)
	}
	var dt Value = &StrV{base{c.span}, "float32"}
	dtSpan := c.span
	if v := c.arg(0, "dtype"); v != nil {
		dt, dtSpan = v, c.argSpan(0, "dtype")
	}
	scope, scopeSpan := Value(&StrV{base{c.span}, fixedScope}), c.span
	if fixedScope == "" {
		scope = &StrV{base{c.span}, "global"}
		if v := c.arg(1, "scope"); v != nil {
			scope, scopeSpan = v, c.argSpan(1, "scope")
		}
	}
	alloc := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{&TupleV{base{c.span}, []Value{&IntV{base{c.span}, 1}}}, dt},
		argSpans: []source.Span{c.span, dtSpan},
		kwargs: []kwarg{{"scope", scope, scopeSpan, scopeSpan},
			{"layout", &LayoutV{base: base{c.span}, L: layout.NewTile([]layout.Iter{layout.It(1, 1, layout.M)}, nil, nil)}, c.span, c.span}}}
	b, ok := ev.tAlloc(alloc, fname, "").(*BufferV)
	if !ok {
		return poison(c.span)
	}
	return &ExprV{base: base{c.span}, E: &ir.Load{Buf: b.B, Indices: []ir.Expr{ir.Const(0)}, Span: c.span}, scalar: true}
}

// storeScalarWrapper is `x = v` on a name bound to a scalar_wrapper: the store of
// v into its buffer's element 0. It reports false when old is not such a
// load (the assignment then rebinds the name).
func (ev *evaluator) storeScalarWrapper(old *ExprV, v Value, vspan, nameSpan source.Span) bool {
	ld, ok := old.E.(*ir.Load)
	if !ok {
		return false
	}
	e, ok := ev.toIR(v, ld.Buf.Dtype)
	if !ok {
		if !isErr(v) {
			ev.errorf(vspan, CodeType, "cannot store %s into the scalar `%s`", describe(v), ld.Buf.Name)
		}
		return true
	}
	if typ := exprType(e); typ.IsValid() && typ != ld.Buf.Dtype {
		e = &ir.Cast{To: ld.Buf.Dtype, X: e, Span: vspan}
	}
	ev.emitStmt(&ir.Store{Buf: ld.Buf, Indices: ld.Indices, Value: e, Span: source.Join(nameSpan, vspan)})
	return true
}

// tWgRegTile is T.wg_reg_tile(elem_per_thread, dtype="float32"): the
// warpgroup register tile T.alloc_buffer((128, elem_per_thread), dtype,
// layout=wg_local_layout(elem_per_thread), scope="local").
func (ev *evaluator) tWgRegTile(c *call) Value {
	if !ev.requireKernel(c, "T.wg_reg_tile") || !ev.checkArgs(c, "wg_reg_tile", 1, "elem_per_thread", "dtype") {
		return poison(c.span)
	}
	n, ok := ev.intArg(c.args[0], c.argSpans[0], "elem_per_thread")
	if !ok {
		return poison(c.span)
	}
	var dt Value = &StrV{base{c.span}, "float32"}
	dtSpan := c.span
	if v := c.arg(1, "dtype"); v != nil {
		dt, dtSpan = v, c.argSpan(1, "dtype")
	}
	lay := ev.wgLocalLayoutCall(&call{span: c.span, fnSpan: c.fnSpan, fr: c.fr, args: []Value{&IntV{base{c.argSpans[0]}, n}}, argSpans: []source.Span{c.argSpans[0]}})
	if isErr(lay) {
		return lay
	}
	alloc := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{&TupleV{base{c.span}, []Value{&IntV{base{c.span}, 128}, &IntV{base{c.span}, n}}}, dt},
		argSpans: []source.Span{c.span, dtSpan},
		kwargs:   []kwarg{{"scope", &StrV{base{c.span}, "local"}, c.span, c.span}, {"layout", lay, c.span, c.span}}}
	return ev.tAlloc(alloc, "T.wg_reg_tile", "")
}

// tAllocCastFrag is T.alloc_cast_frag(src, dtype): a fresh local register
// frag with src's 2-D shape and layout and another element type. The
// reference allocates the (rows*cols // 128) per-thread elements flat and
// views them with src's layout; as for T.alloc_tcgen05_ldst_frag, a local
// buffer of the view's shape and layout has the same storage.
func (ev *evaluator) tAllocCastFrag(c *call) Value {
	if !ev.requireKernel(c, "T.alloc_cast_frag") || !ev.checkArgs(c, "alloc_cast_frag", 2, "src", "dtype") {
		return poison(c.span)
	}
	src, ok := c.args[0].(*BufferV)
	if !ok {
		if isErr(c.args[0]) {
			return ev.needConcrete(c.args[0], c.argSpans[0], "T.alloc_cast_frag's src")
		}
		return ev.errorf(c.argSpans[0], CodeType, "T.alloc_cast_frag src must be a buffer, got %s", describe(c.args[0]))
	}
	if len(src.B.Shape) != 2 {
		return ev.errorf(c.argSpans[0], CodeType, "T.alloc_cast_frag src must be 2-D (rows, cols), got shape %s", shapeList(src.B.Shape))
	}
	if src.B.Layout == nil {
		return ev.errorf(c.argSpans[0], CodeMissingLayout, "buffer `%s` has no layout; T.alloc_cast_frag needs one", src.B.Name)
	}
	shape := &TupleV{base{c.span}, []Value{&IntV{base{c.span}, src.B.Shape[0]}, &IntV{base{c.span}, src.B.Shape[1]}}}
	alloc := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{shape, c.args[1]},
		argSpans: []source.Span{c.argSpans[0], c.argSpans[1]},
		kwargs: []kwarg{{"scope", &StrV{base{c.span}, "local"}, c.span, c.span},
			{"layout", &LayoutV{base: base{c.span}, L: src.B.Layout}, c.span, c.span}}}
	return ev.tAlloc(alloc, "T.alloc_cast_frag", "")
}
