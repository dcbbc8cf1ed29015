package common

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch"
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

// shape is the shape the variants read for g (Shape; the buffer's when a
// Region was built without one).
func (g Region) shape() []int64 {
	if g.Shape != nil {
		return g.Shape
	}
	return g.Buf.Shape
}

// Which runtime extents TVM's layout slicing accepts. The default layout
// of a buffer over (E, 64) is S[(E, 64):(64, 1)]; slicing canonicalizes it
// to one iter of extent E*64 and groups that back by the shape, which the
// arithmetic analyzer must prove. Measured on the 0.25 release
// (TileLayout.slice at a runtime row):
//
//	rank 1, int32 E of any form       groups
//	E an int32 variable or a product  groups   (n, n*4, 4*n, n*s)
//	E a uint32 value                  fails    (u, u*4; rank 1 too)
//	E a sum, difference or quotient   depends  (n+1 and n*64+64 group,
//	                                            n+64 and n-1 do not)
//	E an int64 value                  groups, with int64 offsets
//
// tilels dispatches the first class on the region, reproduces the
// reference's grouping failure for the second (the variants that slice
// decline and the copy falls back, as TVM's does); the others are not
// modelled (dsl/eval's runtimeExtentModelled keeps them from dispatch).

// runtimeGroupFails returns TVM's grouping error for a region of a buffer
// whose runtime extent the reference cannot group, "" otherwise.
func runtimeGroupFails(b *ir.Buffer) string {
	d := b.RuntimeDim()
	if d < 0 || !isUnsigned(b.ShapeExpr[d]) {
		return ""
	}
	e := dispatch.ExprText(b.ShapeExpr[d])
	if x, ok := b.ShapeExpr[d].(*ir.Binary); ok && x.Op == ir.Mul {
		e = strings.TrimSuffix(strings.TrimPrefix(e, "("), ")") // a product prints unparenthesized
	}
	if len(b.Shape) == 1 {
		return fmt.Sprintf("layout T.TileLayout(T.S[%s:T.uint32(1)]) can not be grouped by shape (%s,)", e, e)
	}
	inner := int64(1)
	dims := []string{e}
	for _, n := range b.Shape[1:] {
		inner *= n
		dims = append(dims, strconv.FormatInt(n, 10))
	}
	return fmt.Sprintf("layout T.TileLayout(T.S[%s * T.uint32(%d):T.uint32(1)]) can not be grouped by shape (%s)", e, inner, strings.Join(dims, ", "))
}

func isUnsigned(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Var:
		return x.Type.Code == ir.UInt
	case *ir.IntImm:
		return x.Type.Code == ir.UInt
	case *ir.Binary:
		return isUnsigned(x.A) || isUnsigned(x.B)
	case *ir.Cast:
		return x.To.Code == ir.UInt
	}
	return false
}
