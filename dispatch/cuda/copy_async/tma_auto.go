package copyasync

// copy_async/tma_auto and copy_async/tma_explicit: the TMA copies of 0.26
// and later, which replaced 0.25's single `tma` variant (priority 10 each,
// predicates validate_tma_copy_op and single_thread). tma_auto searches the
// largest legal box; tma_explicit maps the layout the user wrote.
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy_async/tma.py at
// 0.26.0 and 0.27.0.post1 (_validate_tma_copy_op, _COMMON_PREDICATES).

import (
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/release"
)

var tmaCommonPreds = []dispatch.Pred{
	{Name: "validate_tma_copy_op", Check: tmaValidTMACopyOp},
	{Name: "single_thread", Check: tmaSingleThread},
}

var TMAAuto = dispatch.Variant{
	Op: "copy_async", Name: "tma_auto", Target: "cuda", Priority: 10, Releases: release.From(release.R026),
	Renamed: []string{"tma"}, // 0.25's name
	When:    tmaCommonPreds,
	Emit:    EmitTMA,
}

var TMAExplicit = dispatch.Variant{
	Op: "copy_async", Name: "tma_explicit", Target: "cuda", Priority: 10, Releases: release.From(release.R026),
	Renamed: []string{"tma"}, // 0.25's name
	When:    tmaCommonPreds,
	Emit:    EmitTMA,
}

// tmaValidTMACopyOp is _validate_tma_copy_op: both buffers have layouts and
// the copy is global -> shared* or shared* -> global.
func tmaValidTMACopyOp(c *dispatch.Call) *dispatch.Decline {
	src, dst := c.Src(), c.Dst()
	if src == nil || dst == nil || src.Buf.Layout == nil || dst.Buf.Layout == nil {
		return c.Decline(c.Span(), "not a global<->shared TMA copy")
	}
	ss, ds := src.Buf.Scope, dst.Buf.Scope
	if ss == "global" && strings.HasPrefix(ds, "shared") || strings.HasPrefix(ss, "shared") && ds == "global" {
		return nil
	}
	return c.Decline(c.Span(), "not a global<->shared TMA copy")
}
