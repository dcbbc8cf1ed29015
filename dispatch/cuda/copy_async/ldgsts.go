package copyasync

// copy_async/ldgsts: asynchronous global -> shared copy with cp.async
// (SASS LDGSTS), priority 20, so a plain Tx.copy_async(smem, gmem) takes it
// before tma.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy_async/
// ldgsts.py at PRE abe2526b3e. The partition is gmem_smem's (spec §4.1,
// alignLayoutsGS and emitGS in copy/gmem_smem.go): [outer, thread, vec]
// carved from the global side, the shared side grouped to match, the
// §4.1.1 swizzle fast path when it applies. Only the emission differs:
//
//   - vector widths are limited to what cp.async moves, 16, 8 or 4 bytes
//     (vec bits {128, 64, 32}, no scalar fallback added);
//   - each round is one cp.async (ir.OpCpAsync, cp_size = vec bytes) in an
//     unrolled loop (TVM T.unroll), with no synchronisation at the end: the
//     caller commits and waits (T.ptx.cp_async.commit_group / wait_group,
//     then a barrier).
//
// Rejects (predicate ldgsts_applicable, first failure only, TVM's messages):
// non-cuda target, an exec scope other than thread/warp/warpgroup/cta,
// narrowed scopes, invalid copies, any scope pair but global->shared*, a
// degenerate thread_cnt (a CTA of fewer than 32 threads) and region sizes
// not divisible by thread_cnt; plus tilels' symbolic-start limitation
// (sliceableRegions, as gmem_smem). Declines in the emitter when no width
// aligns and the element is not itself 4 or 8 bytes wide: "ldgsts: cannot
// find a cp.async-compatible vec_len for elem_bits=16".

import common "github.com/tilels/tilels/dispatch/cuda/common"
import cudacopy "github.com/tilels/tilels/dispatch/cuda/copy"
import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var Ldgsts = dispatch.Variant{
	Op: "copy_async", Name: "ldgsts", Target: "cuda", Priority: 20,
	When: []dispatch.Pred{{Name: "ldgsts_applicable", Check: isLdgsts}},
	Emit: emitLdgsts,
}

// ldgstsPairs: cp.async only moves global -> shared.
var ldgstsPairs = []common.ScopePair{{Src: "global", Dst: "shared*"}}

// ldgstsVecBits are the cp.async cp_size values, in bits.
var ldgstsVecBits = []int{128, 64, 32}

var ldgstsChecks = []common.Check{
	common.CudaTarget,
	common.ExecScopeIn("", "thread", "warp", "warpgroup", "cta"),
	common.AllThreadsActive,
	common.IsValidCopy,
	common.ScopeAllowed(ldgstsPairs),
	common.DividesThreadCnt,
	common.SliceableRegions,
}

func isLdgsts(c *dispatch.Call) *dispatch.Decline { return common.FirstFailure(c, ldgstsChecks...) }

func emitLdgsts(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	if d := regionInside(c, c.Src(), 1); d != nil {
		return nil, d
	}
	if c.Target.Release >= release.R026 {
		return emitLdgsts26(c)
	}
	return cudacopy.EmitGS(c, cudacopy.GsEmit{
		AllowedBits: ldgstsVecBits,
		Loop:        ir.Unrolled,
		VecOK:       ldgstsCpSize,
		Xfer:        cpAsync,
		Note:        "cp.async is asynchronous: commit_group, wait_group and a barrier are the caller's",
	})
}

// ldgstsCpSize declines a transfer cp.async cannot do. alignLayoutsGS only
// tries 16/8/4-byte widths, but falls through to one element when none
// aligns: fine for 4- and 8-byte elements, not for narrower ones.
func ldgstsCpSize(c *dispatch.Call, numBytes int64, elemBits int) *dispatch.Decline {
	switch numBytes {
	case 4, 8, 16:
		return nil
	}
	return c.Declinef(c.Span(), "ldgsts: cannot find a cp.async-compatible vec_len for elem_bits=%d", elemBits)
}

// cpAsync is T.ptx.cp_async(dst, src, cp_size).
func cpAsync(dst, src ir.Expr, n int64, span source.Span) ir.Stmt {
	return &ir.Evaluate{X: &ir.Call{Op: ir.OpCpAsync, Args: []ir.Expr{dst, src, common.Cst(n)}, Span: span}, Span: span}
}

// regionInside declines a region that provably extends past its buffer
// (tilels-specific: copy_async regions may leave a global tensor because
// TMA fills the outside, but cp.async would read out of bounds).
func regionInside(c *dispatch.Call, r *ir.Region, arg int) *dispatch.Decline {
	for d := range r.Min {
		if d >= len(r.Buf.Shape) || d >= len(r.Extent) {
			break
		}
		lo, lok := ir.ConstInt(r.Min[d])
		ext, eok := ir.ConstInt(r.Extent[d])
		if (lok && lo < 0) || (lok && eok && lo+ext > r.Buf.Shape[d]) {
			tma := "tma"
			if c.Target.Release >= release.R026 {
				tma = "tma_auto"
			}
			return c.Declinef(c.ArgSpan(arg), "region %s extends past dimension %d of %s (extent %d); cp.async has no out-of-bounds fill (TMA has: dispatch=\"%s\")",
				dispatch.ExprText(r), d, r.Buf.Name, r.Buf.Shape[d], tma)
		}
	}
	return nil
}
