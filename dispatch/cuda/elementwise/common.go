package elementwise

// Helpers shared by the elementwise variants elementwise/smem.go and elementwise/reg.go
// (spec §4.4): the common predicate head, NumPy-style broadcasting, region
// index arithmetic and the trailing scope sync.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/elementwise/
// _common.py and common.py (get_indices, get_thread_cnt) at PRE abe2526b3e.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// ewiseHead is the start of both predicates (is_smem_ewise, is_reg_ewise):
// cuda target, a scope in {thread, warp, warpgroup, cta}, every thread of
// the scope active, and a successful parse.
func ewiseHead(c *dispatch.Call, spec *ewiseOpSpec) (*ewisePlan, *dispatch.Decline) {
	if d := common.CudaTarget(c); d != nil {
		return nil, d
	}
	switch c.Scope {
	case "thread", "warp", "warpgroup", "cta":
	default:
		return nil, c.Declinef(common.OpSpan(c), "unsupported scope %s", c.Scope)
	}
	if d := common.AllThreadsActive(c); d != nil {
		return nil, d
	}
	return spec.Parse(c)
}

// ewiseShape is TVM _tensor_shape_of: the constant extents of a region.
// tilels needs them constant; TVM raises on int() of a symbolic extent.
func ewiseShape(c *dispatch.Call, o ewiseOperand) ([]int64, *dispatch.Decline) {
	out := make([]int64, len(o.R.Extent))
	for i, e := range o.R.Extent {
		v, ok := ir.ConstInt(e)
		if !ok {
			return nil, ewiseNonConst(c, o.Arg, e)
		}
		out[i] = v
	}
	return out, nil
}

// ewiseMins are the region starts, 0 where absent.
func ewiseMins(r *ir.Region) []ir.Expr {
	out := make([]ir.Expr, len(r.Extent))
	for i := range out {
		if i < len(r.Min) && r.Min[i] != nil {
			out[i] = r.Min[i]
		} else {
			out[i] = common.Cst(0)
		}
	}
	return out
}

// ewiseBounds are the constant [min, min+ext) bounds of a region; ok is
// false when a start is symbolic (the integer layout algebra cannot slice
// it: a tilels limitation).
func ewiseBounds(r *ir.Region, shape []int64) ([][2]int64, bool) {
	out := make([][2]int64, len(shape))
	for i, m := range ewiseMins(r) {
		v, ok := ir.ConstInt(m)
		if !ok {
			return nil, false
		}
		out[i] = [2]int64{v, v + shape[i]}
	}
	return out, true
}

func ewiseStaticDecline(c *dispatch.Call, o ewiseOperand) *dispatch.Decline {
	return c.Declinef(c.ArgSpan(o.Arg), "non-constant region %s (tilels needs constant region bounds)", dispatch.ExprText(o.R))
}

// ewiseShapeCompat is TVM shape_broadcast_compat: op broadcasts to anchor
// when, right-aligned, every extent equals anchor's or is 1. It returns ""
// when compatible.
func ewiseShapeCompat(op, anchor []int64) string {
	pad := len(anchor) - len(op)
	if pad < 0 {
		return fmt.Sprintf("op rank %d > anchor rank %d", len(op), len(anchor))
	}
	for d, e := range op {
		if a := anchor[pad+d]; e != a && e != 1 {
			return fmt.Sprintf("dim %d: op extent %d vs anchor %d (need equal or 1)", d, e, a)
		}
	}
	return ""
}

// ewiseBroadcastCheck runs the "shape incompat: ..." check of both
// predicates for every operand other than the anchor (dst).
func ewiseBroadcastCheck(c *dispatch.Call, p *ewisePlan) *dispatch.Decline {
	anchor, d := ewiseShape(c, ewiseOperand{p.Dst, 0})
	if d != nil {
		return d
	}
	for _, o := range p.operands()[1:] {
		s, d := ewiseShape(c, o)
		if d != nil {
			return d
		}
		if why := ewiseShapeCompat(s, anchor); why != "" {
			return c.Declinef(c.ArgSpan(o.Arg), "shape incompat: %s", why)
		}
	}
	return nil
}

// ewisePyTuple prints a shape like a Python tuple: (1, 6, 1), (4,).
func ewisePyTuple(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	if len(xs) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ewiseBroadcastLift is TVM _broadcast_lift: l (a layout of opShape) is
// lifted to anchorShape by a stride-0 iter for each padded leading dim and
// for each extent-1 dim that broadcasts. Replica and offsets are kept, so
// the address function is unchanged.
func ewiseBroadcastLift(l *layout.TileLayout, opShape, anchorShape []int64) *layout.TileLayout {
	pad := len(anchorShape) - len(opShape)
	g, seps, err := layout.Group(l, opShape)
	if err != nil {
		dispatch.Raise("ValueError", "op layout %s not groupable by tensor shape %s: %v", l, ewisePyTuple(opShape), err)
	}
	var shard []layout.Iter
	for d := range pad {
		shard = append(shard, layout.It(anchorShape[d], 0, layout.M))
	}
	for d, e := range opShape {
		a := anchorShape[pad+d]
		switch {
		case e == a:
			shard = append(shard, g.Shard[seps[d]:seps[d+1]]...)
		case e == 1:
			shard = append(shard, layout.It(a, 0, layout.M))
		default:
			dispatch.Raise("ValueError", "dim %d: op extent %d vs anchor %d (shape_broadcast_compat should have rejected)", d, e, a)
		}
	}
	return layout.NewTile(shard, g.Replica, g.Offset)
}

// ewiseSrcIndices are the indices of a region src for the dst element with
// relative digits rel (TVM fetch_src_value / _src_lane_indices): the same
// digits from the src's own start when the shapes match, else the
// right-aligned broadcast mapping (an extent-1 dim reads its start).
func ewiseSrcIndices(rel []ir.Expr, dstShape []int64, src *ir.Region, srcShape []int64) []ir.Expr {
	mins := ewiseMins(src)
	out := make([]ir.Expr, len(srcShape))
	pad := len(dstShape) - len(srcShape)
	same := pad == 0
	for i := range srcShape {
		if same && srcShape[i] != dstShape[i] {
			same = false
		}
	}
	for i := range srcShape {
		if !same && srcShape[i] == 1 {
			out[i] = mins[i]
			continue
		}
		out[i] = ir.AddE(rel[i+pad], mins[i])
	}
	return out
}

// ewiseAddStarts is get_indices: relative digits plus the region starts.
func ewiseAddStarts(rel []ir.Expr, r *ir.Region) []ir.Expr {
	mins := ewiseMins(r)
	out := make([]ir.Expr, len(rel))
	for i := range rel {
		out[i] = ir.AddE(rel[i], mins[i])
	}
	return out
}

// ewiseScopeSync is TVM emit_scope_sync: cta → T.cuda.cta_sync(),
// warpgroup → T.cuda.warpgroup_sync(8), warp → T.cuda.warp_sync(),
// thread → nothing (nil).
func ewiseScopeSync(scope string, sp source.Span) ir.Stmt {
	var call *ir.Call
	switch scope {
	case "cta":
		call = &ir.Call{Op: ir.OpCTASync, Span: sp}
	case "warpgroup":
		call = &ir.Call{Op: ir.OpWarpgroupSync, Args: []ir.Expr{common.Cst(8)}, Span: sp}
	case "warp":
		call = &ir.Call{Op: ir.OpWarpSync, Span: sp}
	default:
		return nil
	}
	return &ir.Evaluate{X: call, Span: sp}
}

// ewiseMaxBits is the widest element over dst and the region srcs.
func ewiseMaxBits(p *ewisePlan) int {
	bits := p.Dst.Buf.Dtype.Bits
	for _, s := range p.Srcs {
		if s.Region != nil {
			bits = max(bits, s.Region.Buf.Dtype.Bits)
		}
	}
	return bits
}

func ewiseProd(xs []int64) int64 {
	n := int64(1)
	for _, x := range xs {
		n *= x
	}
	return n
}
