package permutelayout

import (
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/ir"
)

// directPtr is 0.26.0's direct-path address of element r of the lane:
// the region's start (buf.ptr_to(start)) plus the iteration digits times
// the side's element strides (T.ptr_byte_offset(base, off * dtype_bytes)),
// for ld.shared / st.shared of the raw bits.
func (pl *plan) directPtr(r *ir.Region, strides []int64, lane ir.Expr, i int64) ir.Expr {
	span := r.Span
	start := make([]ir.Expr, len(r.Extent))
	for d := range start {
		start[d] = common.Cst(0)
		if d < len(r.Min) && r.Min[d] != nil {
			start[d] = r.Min[d]
		}
	}
	digits := pl.digits(lane, i)
	var off ir.Expr = common.Cst(0)
	for d, s := range strides {
		if s != 0 {
			off = ir.AddE(off, ir.MulE(digits[d], common.Cst(s)))
		}
	}
	base := &ir.AddressOf{Buf: r.Buf, Indices: start, Span: span}
	return &ir.Call{Op: ir.OpPointerOffset, Args: []ir.Expr{base, off}, Type: ir.HandleT, Span: span}
}
