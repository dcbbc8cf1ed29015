package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"fmt"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// buf.sub[...] of a tensor-memory buffer at an allocated_addr
// (tvm/tirx/_buffer_view.py, 0.27: _rebuild_view's is_tmem branch,
// _tmem_offset_axis_check, _tmem_element_offset_to_column_offset). The view
// is a buffer of its own (no data pointer, element offset 0) whose
// allocated_addr is the parent's moved by the selected element offset in
// 32-bit columns: o_tmem.sub[:, 0:128] and o_tmem.sub[:, 128:256] of a
// float32 accumulator are two accumulators 128 columns apart. An offset
// may only move along TCol iters (a lane offset cannot fold into the
// column address) and must be a whole number of 32-bit columns; both are
// the reference's ValueErrors. A runtime index or bound (whose alignment
// the reference proves with its analyzer) and a stepped slice stay "not
// modelled".

// subscriptSubTmem is buf.sub[idx] for a tensor-memory buf with an
// allocated_addr.
func subscriptSubTmem(ev *eval.Evaluator, buf *ir.Buffer, idx []eval.Value, e *syntax.Subscript) eval.Value {
	sp := e.Loc
	if len(idx) > len(buf.Shape) {
		return ev.Errorf(sp, eval.CodeType, "sub: %d indices for buffer of rank %d", len(idx), len(buf.Shape))
	}
	cur := viewStep{shape: buf.Shape, lay: buf.Layout}
	var col ir.Expr = buf.AllocatedAddr
	static := func(v eval.Value, what string) (int64, eval.Value) {
		if n, ok := eval.ToInt(v); ok {
			return n, nil
		}
		if x, ok := v.(*eval.ExprV); ok {
			return 0, &eval.OpaqueV{Base: eval.Base{At: sp}, Path: fmt.Sprintf("Buffer.sub of a tensor-memory buffer with the runtime %s %s (a symbolic column offset)", what, eval.Clip(eval.ExprString(x.E), 40))}
		}
		return 0, ev.Errorf(v.Span(), eval.CodeType, "sub: %s must be an integer or a slice, got %s", what, eval.Describe(v))
	}
	dim := 0
	for _, item := range idx {
		var next viewStep
		var err string
		s, isSlice := item.(*eval.SliceV)
		switch {
		case !isSlice:
			i, bad := static(item, "index")
			if bad != nil {
				return bad
			}
			if dim < len(cur.shape) && i >= 0 && i < cur.shape[dim] && i != 0 {
				if err = tmemAxisCheck(cur, buf, dim, false, "index"); err != "" {
					break
				}
			}
			next, err = viewDrop(cur, buf, dim, i)
		case !eval.IsNoneV(s.Step):
			if n, ok := eval.ToInt(s.Step); !ok || n != 1 {
				return &eval.OpaqueV{Base: eval.Base{At: sp}, Path: "Buffer.sub of a tensor-memory buffer with a stepped slice"}
			}
			fallthrough
		default:
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
			next, err = viewNarrow(cur, buf, dim, start, stop-start)
			if err == "" && start != 0 {
				err = tmemNarrowCheck(cur, buf, dim, start)
			}
			dim++
		}
		if err != "" {
			return ev.Errorf(item.Span(), eval.CodeType, "%s", err)
		}
		// _tmem_element_offset_to_column_offset: the step's element
		// offset in 32-bit columns.
		if delta := next.off - cur.off; delta != 0 {
			bits := delta * int64(buf.Dtype.Bits)
			if bits%32 != 0 {
				return ev.Errorf(item.Span(), eval.CodeType, "sub: tmem TCol offset must be aligned to a physical 32-bit column; got %d elements of %s", delta, buf.Dtype)
			}
			col = ir.AddE(col, ir.Const(bits/32))
		}
		next.off = 0
		cur = next
	}
	if ev.Kern == nil || ev.Emit == nil {
		return ev.Errorf(sp, eval.CodeType, "a buffer view is only allowed inside a prim_func body")
	}
	nb := &ir.Buffer{Name: buf.Name + "_sub", Shape: cur.shape, Dtype: buf.Dtype, Scope: buf.Scope,
		Layout: cur.lay, AllocatedAddr: col, Kind: ir.AllocBuffer, Span: sp}
	nb.Data = &ir.Var{Name: nb.Name, Type: ir.HandleT, Span: sp}
	ev.AddBufferSite(nb, source.NoSpan, sp, source.NoSpan)
	ev.EmitStmt(&ir.Alloc{Buf: nb, Span: sp})
	return &eval.BufferV{Base: eval.Base{At: sp}, B: nb}
}

// tmemAxisCheck is _tmem_offset_axis_check over the iters of dimension
// dim (all of them, or only the outermost): each must be on TCol.
func tmemAxisCheck(cur viewStep, buf *ir.Buffer, dim int, outerOnly bool, what string) string {
	g, seps, _, why := groupView(cur, buf)
	if why != "" {
		return why
	}
	group := g.Shard[seps[dim]:seps[dim+1]]
	if outerOnly && len(group) > 1 {
		group = group[:1]
	}
	for _, it := range group {
		if it.Axis != layout.TCol {
			name := "None"
			if it.Axis != nil {
				name = "'" + it.Axis.Name + "'"
			}
			return fmt.Sprintf("sub: tmem %s with nonzero offset requires TCol-stride layout iters; dim iter has axis %s (a lane-axis offset cannot fold into the column allocated_addr)", what, name)
		}
	}
	return ""
}

// tmemNarrowCheck is _view_narrow's axis check at a nonzero start: the
// dimension's single iter, or the outer one of several when the start
// moves it (start // inner != 0).
func tmemNarrowCheck(cur viewStep, buf *ir.Buffer, dim int, start int64) string {
	g, seps, _, why := groupView(cur, buf)
	if why != "" {
		return why
	}
	group := g.Shard[seps[dim]:seps[dim+1]]
	if len(group) > 1 {
		inner := int64(1)
		for _, it := range group[1:] {
			inner *= it.Extent
		}
		if start/inner == 0 {
			return ""
		}
	}
	return tmemAxisCheck(cur, buf, dim, true, "narrow")
}
