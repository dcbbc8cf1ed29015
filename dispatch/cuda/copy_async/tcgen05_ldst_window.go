package copyasync

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// The staged TMEM operand of tcgen05.ld/st, 0.26+ (tcgen05_ldst.py
// _tmem_window): the TMEM region may be (frag_rows, width) prefixed by
// point-indexed dimensions, a staged view's stage axis
// (acc = acc_buf.rearrange("m (s n) -> s m n"); acc[stage, :, c:c+32]),
// which fold into the TCol offset when the layout is sliced. 0.25 asserts
// a 2-D TMEM buffer.
//
// tilels folds such a region before the 2-D plan: each leading dimension
// must have extent 1 (the reference's assertion text) and be one layout
// iter on TCol; the view is the buffer's last two layout groups at the
// same allocated_addr, and the region starts index x stride columns
// further. A leading dimension of several iters, or on another axis, is
// left to the 2-D assertion (the reference would move a TLane offset into
// the row immediate, which tilels does not model).

// foldStagedTmem returns the 2-D view and region of a staged TMEM region
// (tb, r unchanged when there is nothing to fold).
func foldStagedTmem(c *dispatch.Call, tb *ir.Buffer, r *ir.Region) (*ir.Buffer, *ir.Region) {
	n := len(tb.Shape)
	if c.Target.Release < release.R026 || n <= 2 || len(r.Extent) != n || tb.Layout == nil {
		return tb, r
	}
	for d := 0; d < n-2; d++ {
		if e, ok := ir.ConstInt(r.Extent[d]); !ok || e != 1 {
			dispatch.Raise("AssertionError", "tcgen05 ld/st: leading tmem region dims must be points, got extent %s", dispatch.ExprText(r.Extent[d]))
		}
	}
	t := layout.ToTile(tb.Layout)
	if t == nil {
		return tb, r
	}
	g, seps, err := layout.Group(t, tb.Shape)
	if err != nil {
		return tb, r
	}
	var off ir.Expr = ir.Const(0)
	for d := 0; d < n-2; d++ {
		group := g.Shard[seps[d]:seps[d+1]]
		if len(group) != 1 || group[0].Axis != layout.TCol {
			return tb, r
		}
		min := ir.Expr(ir.Const(0))
		if d < len(r.Min) && r.Min[d] != nil {
			min = r.Min[d]
		}
		off = ir.AddE(off, ir.MulE(min, ir.Const(group[0].Stride)))
	}
	nt := layout.NewTile(append([]layout.Iter(nil), g.Shard[seps[n-2]:]...), g.Replica, g.Offset)
	nb := &ir.Buffer{Name: tb.Name, Data: tb.Data, Shape: tb.Shape[n-2:], Dtype: tb.Dtype, Scope: tb.Scope,
		Layout: nt, AllocatedAddr: tb.AllocatedAddr, Kind: tb.Kind, Span: tb.Span}
	mins := make([]ir.Expr, 2)
	for i := range mins {
		mins[i] = ir.Const(0)
		if d := n - 2 + i; d < len(r.Min) && r.Min[d] != nil {
			mins[i] = r.Min[d]
		}
	}
	mins[1] = ir.AddE(mins[1], off)
	return nb, &ir.Region{Buf: nb, Min: mins, Extent: r.Extent[n-2:], Span: r.Span}
}
