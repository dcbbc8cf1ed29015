package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// Derived buffer views of tvm.tirx._buffer_view: buf.sub[...] (numpy basic
// indexing as a view constructor: an integer index drops the dimension, a:b
// narrows it, a::s keeps every s-th element) and buf.permute(*dims). Each
// is a decl_buffer over buf's storage whose layout is buf's layout grouped
// by its shape with the selected iters removed, narrowed or reordered; an
// index moves the view's element offset by index x stride (into the
// layout's "m" offset instead when it does not commute with a swizzle).
//
// An index that is a runtime value (the row of a kernel's block index)
// gives the view a runtime element offset (ir.Buffer.ElemOffsetExpr), as
// TVM's symbolic elem_offset; the copy variants decide on the view's
// layout, not its offset. A runtime slice bound, a runtime index into a
// dimension of several layout iters or under a swizzle it may not commute
// with, and a tensor-memory view (its offset moves allocated_addr) are
// "not modelled", naming the construct.

// subIndexerV is buf.sub, the indexer; only subscripting it does anything.
type subIndexerV struct {
	eval.Base
	B *ir.Buffer
}

func (*subIndexerV) TypeName() string { return "SubIndexer" }

// viewLayout returns buf's layout split into its tile layout and the
// swizzle around it (nil when none), or a reason it has none.
func viewLayout(buf *ir.Buffer) (*layout.TileLayout, *layout.ComposeLayout, string) {
	switch l := buf.Layout.(type) {
	case *layout.TileLayout:
		return l, nil, ""
	case *layout.ComposeLayout:
		return l.Tile, l, ""
	case nil:
		return nil, nil, fmt.Sprintf("buffer `%s` has no layout", buf.Name)
	}
	return nil, nil, fmt.Sprintf("the layout of `%s` is not a TileLayout", buf.Name)
}

// rewrap puts a view's tile layout back under the parent's swizzle.
func rewrap(t *layout.TileLayout, sw *layout.ComposeLayout) layout.Layout {
	if sw == nil {
		return t
	}
	return &layout.ComposeLayout{PerElement: sw.PerElement, SwizzleLen: sw.SwizzleLen, AtomLen: sw.AtomLen, SwizzleInner: sw.SwizzleInner, Tile: t}
}

// viewStep is one derived view: shape, layout, element offset (static
// and runtime parts).
type viewStep struct {
	shape []int64
	lay   layout.Layout
	off   int64
	dyn   ir.Expr
	// inSwizzle: dyn lies inside the layout's swizzle (ir.Buffer.OffsetInSwizzle)
	inSwizzle bool
}

// subscriptSub is buf.sub[items].
func subscriptSub(ev *eval.Evaluator, o *subIndexerV, idx []eval.Value, e *syntax.Subscript) eval.Value {
	sp := e.Loc
	for _, x := range idx {
		if eval.IsErr(x) {
			return x
		}
	}
	buf := o.B
	if buf.Layout == nil && ev.Kern != nil && ev.Kern.BadLayout[buf] {
		return eval.Poison(sp) // the layout's failure is reported
	}
	if buf.Scope == "tmem" {
		if buf.AllocatedAddr != nil {
			return subscriptSubTmem(ev, buf, idx, e) // buffer_view_tmem.go
		}
		return &eval.OpaqueV{Base: eval.Base{At: sp}, Path: "Buffer.sub of a tensor-memory buffer"}
	}
	if len(idx) > len(buf.Shape) {
		return ev.Errorf(sp, eval.CodeType, "sub: %d indices for buffer of rank %d", len(idx), len(buf.Shape))
	}
	cur := viewStep{shape: buf.Shape, lay: buf.Layout, off: buf.ElemOffset, dyn: buf.ElemOffsetExpr}
	static := func(v eval.Value, what string) (int64, eval.Value) {
		if n, ok := eval.ToInt(v); ok {
			return n, nil
		}
		if x, ok := v.(*eval.ExprV); ok {
			return 0, &eval.OpaqueV{Base: eval.Base{At: sp}, Path: fmt.Sprintf("Buffer.sub with the runtime %s %s (a symbolic element offset)", what, eval.Clip(eval.ExprString(x.E), 40))}
		}
		return 0, ev.Errorf(v.Span(), eval.CodeType, "sub: %s must be an integer or a slice, got %s", what, eval.Describe(v))
	}
	dim := 0
	var err string
	for _, item := range idx {
		s, isSlice := item.(*eval.SliceV)
		if x, ok := item.(*eval.ExprV); ok && !isSlice {
			var why string
			if cur, why, err = viewDropRuntime(cur, buf, dim, x.E); why != "" {
				return &eval.OpaqueV{Base: eval.Base{At: sp}, Path: why}
			}
			if err != "" {
				return ev.Errorf(item.Span(), eval.CodeType, "%s", err)
			}
			continue
		}
		if !isSlice {
			i, bad := static(item, "index")
			if bad != nil {
				return bad
			}
			if cur, err = viewDrop(cur, buf, dim, i); err != "" {
				return ev.Errorf(item.Span(), eval.CodeType, "%s", err)
			}
			continue
		}
		step := int64(1)
		if !eval.IsNoneV(s.Step) {
			n, bad := static(s.Step, "slice step")
			if bad != nil {
				return bad
			}
			step = n
		}
		if step == 1 {
			if eval.IsNoneV(s.Lo) && eval.IsNoneV(s.Hi) {
				dim++
				continue
			}
			start, stop := int64(0), cur.shape[dim]
			if !eval.IsNoneV(s.Lo) {
				n, bad := static(s.Lo, "slice start")
				if bad != nil {
					return bad
				}
				start = n
			}
			if !eval.IsNoneV(s.Hi) {
				n, bad := static(s.Hi, "slice stop")
				if bad != nil {
					return bad
				}
				stop = n
			}
			if cur, err = viewNarrow(cur, buf, dim, start, stop-start); err != "" {
				return ev.Errorf(item.Span(), eval.CodeType, "%s", err)
			}
			dim++
			continue
		}
		// a::s: view the dimension as (extent/s, s), then drop the inner
		// one at a.
		if step <= 0 {
			return ev.Errorf(item.Span(), eval.CodeType, "sub: step must be a positive int, got %d", step)
		}
		if !eval.IsNoneV(s.Hi) {
			return ev.Errorf(item.Span(), eval.CodeType, "sub: a stop bound with a step is not supported")
		}
		extent := cur.shape[dim]
		if extent%step != 0 {
			return ev.Errorf(item.Span(), eval.CodeType, "sub: dim extent %d is not divisible by step %d", extent, step)
		}
		start := int64(0)
		if !eval.IsNoneV(s.Lo) {
			n, bad := static(s.Lo, "slice start")
			if bad != nil {
				return bad
			}
			start = n
		}
		if start < 0 || start >= step {
			return ev.Errorf(item.Span(), eval.CodeType, "sub: stepped-slice start %d must be in [0, %d)", start, step)
		}
		split := append(append(append([]int64(nil), cur.shape[:dim]...), extent/step, step), cur.shape[dim+1:]...)
		cur.shape = split
		if cur, err = viewDrop(cur, buf, dim+1, start); err != "" {
			return ev.Errorf(item.Span(), eval.CodeType, "%s", err)
		}
		dim++
	}
	return declView(ev, buf, buf.Name+"_sub", cur, sp)
}

// declView declares the derived view cur of buf (the same data, Base buf)
// and returns it.
func declView(ev *eval.Evaluator, buf *ir.Buffer, name string, cur viewStep, sp source.Span) eval.Value {
	if ev.Kern == nil || ev.Emit == nil {
		return ev.Errorf(sp, eval.CodeType, "a buffer view is only allowed inside a prim_func body")
	}
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: cur.shape, Dtype: buf.Dtype, Scope: buf.Scope,
		Layout: cur.lay, ElemOffset: cur.off, ElemOffsetExpr: cur.dyn, Base: buf, Kind: ir.DeclBuffer, Span: sp,
		OffsetInSwizzle: cur.inSwizzle}
	if ev.Kern.BadLayout[buf] {
		ev.Kern.BadLayout[nb] = true
	}
	ev.AddBufferSite(nb, source.NoSpan, sp, source.NoSpan)
	ev.EmitStmt(&ir.Decl{Buf: nb, Span: sp})
	return &eval.BufferV{Base: eval.Base{At: sp}, B: nb}
}

// groupView groups cur's layout by its shape.
func groupView(cur viewStep, buf *ir.Buffer) (*layout.TileLayout, []int, *layout.ComposeLayout, string) {
	t, sw, why := viewLayout(&ir.Buffer{Name: buf.Name, Layout: cur.lay})
	if why != "" {
		return nil, nil, nil, why
	}
	g, seps, err := layout.Group(t, cur.shape)
	if err != nil {
		return nil, nil, nil, err.Error()
	}
	return g, seps, sw, ""
}

// viewDrop removes dimension dim at index (_view_drop).
func viewDrop(cur viewStep, buf *ir.Buffer, dim int, index int64) (viewStep, string) {
	if dim >= len(cur.shape) {
		return cur, fmt.Sprintf("index: dim %d out of range for buffer of rank %d", dim, len(cur.shape))
	}
	if index < 0 || index >= cur.shape[dim] {
		return cur, fmt.Sprintf("index %d out of range for dim %d of extent %d", index, dim, cur.shape[dim])
	}
	g, seps, sw, why := groupView(cur, buf)
	if why != "" {
		return cur, why
	}
	lo, hi := seps[dim], seps[dim+1]
	group := g.Shard[lo:hi]
	// _dim_group_offset: the index's digits over the group's extents.
	var off int64
	rem := index
	for k, it := range group {
		inner := int64(1)
		for _, in := range group[k+1:] {
			inner *= in.Extent
		}
		coord := rem
		if inner != 1 {
			coord, rem = rem/inner, rem%inner
		}
		off += coord * it.Stride
	}
	shape := append(append([]int64(nil), cur.shape[:dim]...), cur.shape[dim+1:]...)
	shard := append(append([]layout.Iter(nil), g.Shard[:lo]...), g.Shard[hi:]...)
	return rebuildView(cur, g, sw, shape, shard, off, len(group) > 0), ""
}

// viewDropRuntime is viewDrop at a runtime index: the offset index x
// stride joins the view's runtime offset. It returns a "not modelled"
// path (why) where TVM's offset would need more than that: a dimension
// of several layout iters (floordiv/floormod digits), or a swizzle the
// offset is not provably a multiple of the period of.
func viewDropRuntime(cur viewStep, buf *ir.Buffer, dim int, index ir.Expr) (viewStep, string, string) {
	if dim >= len(cur.shape) {
		return cur, "", fmt.Sprintf("index: dim %d out of range for buffer of rank %d", dim, len(cur.shape))
	}
	g, seps, sw, why := groupView(cur, buf)
	if why != "" {
		return cur, "", why
	}
	lo, hi := seps[dim], seps[dim+1]
	group := g.Shard[lo:hi]
	idx := eval.Clip(eval.ExprString(index), 40)
	if len(group) > 1 {
		return cur, fmt.Sprintf("Buffer.sub at the runtime index %s of a dimension of %d layout iters", idx, len(group)), ""
	}
	stride := int64(0)
	if len(group) == 1 {
		stride = group[0].Stride
		if group[0].Axis != layout.M {
			return cur, fmt.Sprintf("Buffer.sub at the runtime index %s of a dimension on axis %s", idx, group[0].Axis), ""
		}
	}
	inside := false
	if sw != nil && sw.SwizzleLen != 0 {
		if period := int64(1) << (sw.PerElement + sw.AtomLen + sw.SwizzleLen); stride%period != 0 {
			// TVM folds the offset into the swizzled tile's offset
			// (_rebuild_view: it does not commute with the swizzle). The
			// view keeps the layout of index 0 and the runtime offset,
			// marked as inside the swizzle: only a TMA transfer models it
			// (ir.Buffer.OffsetInSwizzle).
			inside = true
		}
	}
	shape := append(append([]int64(nil), cur.shape[:dim]...), cur.shape[dim+1:]...)
	shard := append(append([]layout.Iter(nil), g.Shard[:lo]...), g.Shard[hi:]...)
	next := rebuildView(cur, g, sw, shape, shard, 0, false)
	next.inSwizzle = next.inSwizzle || inside
	if stride != 0 {
		term := ir.MulE(index, ir.Const(stride))
		if next.dyn == nil {
			next.dyn = term
		} else {
			next.dyn = ir.AddE(next.dyn, term)
		}
	}
	return next, "", ""
}

// viewNarrow keeps [start, start+length) of dimension dim (_view_narrow).
func viewNarrow(cur viewStep, buf *ir.Buffer, dim int, start, length int64) (viewStep, string) {
	switch {
	case start < 0:
		return cur, fmt.Sprintf("sub: start %d must be non-negative", start)
	case length < 1:
		return cur, fmt.Sprintf("sub: length %d must be positive", length)
	case start+length > cur.shape[dim]:
		return cur, fmt.Sprintf("sub: range [%d, %d) exceeds dim %d extent %d", start, start+length, dim, cur.shape[dim])
	}
	g, seps, sw, why := groupView(cur, buf)
	if why != "" {
		return cur, why
	}
	lo, hi := seps[dim], seps[dim+1]
	group := g.Shard[lo:hi]
	if len(group) == 0 {
		return cur, fmt.Sprintf("sub: dim %d has no layout iter", dim)
	}
	var off int64
	var ng []layout.Iter
	if len(group) == 1 {
		off = start * group[0].Stride
		ng = []layout.Iter{layout.It(length, group[0].Stride, group[0].Axis)}
	} else {
		inner := int64(1)
		for _, it := range group[1:] {
			inner *= it.Extent
		}
		if start%inner != 0 || length%inner != 0 {
			return cur, fmt.Sprintf("sub: dim %d start/length must be multiples of the inner iter block %d; got start=%d length=%d", dim, inner, start, length)
		}
		off = start / inner * group[0].Stride
		ng = append([]layout.Iter{layout.It(length/inner, group[0].Stride, group[0].Axis)}, group[1:]...)
	}
	shape := append([]int64(nil), cur.shape...)
	shape[dim] = length
	shard := append(append(append([]layout.Iter(nil), g.Shard[:lo]...), ng...), g.Shard[hi:]...)
	return rebuildView(cur, g, sw, shape, shard, off, true), ""
}

// rebuildView is _rebuild_view: the new layout from the kept iters, the
// offset added to the element offset, or to the layout's "m" offset when
// it does not commute with the swizzle (a multiple of the swizzle period
// 2^(per_element+atom_len+swizzle_len) does).
func rebuildView(cur viewStep, g *layout.TileLayout, sw *layout.ComposeLayout, shape []int64, shard []layout.Iter, off int64, hasOff bool) viewStep {
	offset := map[*layout.Axis]int64{}
	for a, v := range g.Offset {
		offset[a] = v
	}
	if hasOff && sw != nil && sw.SwizzleLen != 0 {
		period := int64(1) << (sw.PerElement + sw.AtomLen + sw.SwizzleLen)
		if off%period != 0 {
			offset[layout.M] += off
			off, hasOff = 0, false
		}
	}
	t := layout.NewTile(shard, g.Replica, offset)
	return viewStep{shape: shape, lay: rewrap(t, sw), off: cur.off + off, dyn: cur.dyn, inSwizzle: cur.inSwizzle}
}

// bufferPermute is buf.permute(*dims) (_buffer_view.permute): the
// dimensions reordered, the layout's groups with them.
func bufferPermute(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call) eval.Value {
	if len(c.Kwargs) > 0 {
		return ev.Errorf(c.At, eval.CodeType, "Buffer.permute takes no keyword arguments")
	}
	if e := eval.FirstErr(c.Args...); e != nil {
		return ev.NeedConcrete(e, e.Span(), "Buffer.permute's dims")
	}
	dims := make([]int, len(c.Args))
	seen := make([]bool, len(buf.Shape))
	var bad []string
	for i, a := range c.Args {
		n, ok := eval.ToInt(a)
		if !ok {
			return ev.Errorf(c.ArgSpans[i], eval.CodeType, "Buffer.permute dims must be integers, got %s", eval.Describe(a))
		}
		if n < 0 || int(n) >= len(buf.Shape) || seen[n] {
			bad = append(bad, fmt.Sprint(n))
			continue
		}
		seen[n] = true
		dims[i] = int(n)
	}
	if len(bad) > 0 || len(dims) != len(buf.Shape) {
		return ev.Errorf(c.At, eval.CodeType, "Buffer.permute(%s) is not a permutation of the %d dimensions of `%s`", joinArgs(c.Args), len(buf.Shape), buf.Name)
	}
	if buf.Scope == "tmem" && buf.AllocatedAddr != nil {
		return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "Buffer.permute of a tensor-memory buffer"}
	}
	t, sw, why := viewLayout(buf)
	if buf.Layout == nil && ev.Kern != nil && ev.Kern.BadLayout[buf] {
		return eval.Poison(c.At) // the layout's failure is reported
	}
	if why != "" {
		return ev.Errorf(c.At, eval.CodeType, "Buffer.permute: %s", why)
	}
	g, seps, err := layout.Group(t, buf.Shape)
	if err != nil {
		return ev.Errorf(c.At, eval.CodeType, "%v", err)
	}
	shape := make([]int64, len(dims))
	for i, d := range dims {
		shape[i] = buf.Shape[d]
	}
	nl := rewrap(layout.PermuteByGroups(g, seps, dims), sw)
	name, _ := ev.HintName(c, buf.Name+"_permute")
	return declView(ev, buf, name, viewStep{shape: shape, lay: nl, off: buf.ElemOffset, dyn: buf.ElemOffsetExpr}, c.At)
}

func joinArgs(vs []eval.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = eval.Repr(v)
	}
	return strings.Join(parts, ", ")
}
