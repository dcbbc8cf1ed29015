package common

import (
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// A global buffer whose outermost extent is a runtime value
// (ir.Buffer.ShapeExpr; T.match_buffer(h, (n, 256)) over a kernel scalar)
// has TVM's default row-major layout over a symbolic shape. TVM's copy
// variants slice that layout to the region and its analyzer proves what
// they ask (vector widths, contiguity) from the static inner extents: a
// row-major buffer's strides do not depend on its outermost extent. The
// variants here see the same thing: the layout of the buffer restricted
// to the rows the region covers, i.e. the row-major layout over the shape
// whose runtime dimensions take the region's (static) extents, with the
// region starting at row 0 of it and its runtime start kept in Mins (so
// addresses still add start * stride). The buffer's own Shape[d] (0) is
// never read.

// RegionLayout returns the layout and shape the variants read for region
// r: the buffer's own, or for a buffer with a runtime dimension the
// row-major layout over its shape with each runtime extent replaced by
// the region's extent there. ok is false when such an extent is not a
// constant.
func RegionLayout(r *ir.Region) (layout.Layout, []int64, bool) {
	b := r.Buf
	if b.RuntimeDim() < 0 {
		return b.Layout, b.Shape, true
	}
	shape := append([]int64(nil), b.Shape...)
	for d, e := range b.ShapeExpr {
		if e == nil {
			continue
		}
		if d >= len(r.Extent) {
			return nil, nil, false
		}
		n, ok := ir.ConstInt(r.Extent[d])
		if !ok || n <= 0 {
			return nil, nil, false
		}
		shape[d] = n
	}
	return layout.RowMajor(shape...), shape, true
}

// HasLayout reports whether b has a layout the variants can read (its own
// or, over a runtime dimension, the one RegionLayout builds).
func HasLayout(b *ir.Buffer) bool {
	return b.Layout != nil || b.RuntimeDim() >= 0
}
