package copyasync

// copy_async/smem->tmem: shared memory -> Blackwell tensor memory with
// tcgen05.cp.32x128b.warpx4, priority 10.
//
// Mirrors the predicates of TVM python/tvm/backend/cuda/operator/
// tile_primitive/copy_async/tcgen05_cp.py at PRE abe2526b3e:
// validate_smem_tmem_copy (TVM copy/utils.py _is_valid_smem_tmem_copy:
// "expected shared->tmem, got {src}->{dst}", "both buffers must have
// layouts", "requires R[4:32@TLane] on tmem, got replica=[...]") and
// exec_scope (_single_thread_exec: "expected thread exec_scope, got {k}").
// and "tmem buffer must have allocated_addr" (ir.Buffer.AllocatedAddr).
//
// tilels does not lower smem->tmem copies: once the predicates pass, the
// emitter declines with "tilels does not lower smem->tmem copies yet
// (tcgen05.cp.32x128b.warpx4)", so the call is reported instead of lowered.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
)

var SmemTmem = dispatch.Variant{
	Op: "copy_async", Name: "smem->tmem", Target: "cuda", Priority: 10,
	When: []dispatch.Pred{
		{Name: "validate_smem_tmem_copy", Check: validSmemTmemCopy},
		{Name: "exec_scope", Check: common.SingleThreadExec},
	},
	Emit: func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
		return nil, c.Decline(c.Span(), "tilels does not lower smem->tmem copies yet (tcgen05.cp.32x128b.warpx4)")
	},
}

// validSmemTmemCopy is TVM _is_valid_smem_tmem_copy.
func validSmemTmemCopy(c *dispatch.Call) *dispatch.Decline {
	src, dst := c.Src().Buf, c.Dst().Buf
	if !common.MatchScope(src.Scope, "shared*") || dst.Scope != "tmem" {
		return c.Declinef(c.Span(), "expected shared->tmem, got %s->%s", src.Scope, dst.Scope)
	}
	if src.Layout == nil || dst.Layout == nil {
		return c.Decline(c.Span(), "both buffers must have layouts")
	}
	if dst.AllocatedAddr == nil {
		return c.Decline(c.ArgSpan(0), "tmem buffer must have allocated_addr")
	}
	rep := layout.ToTile(dst.Layout).Replica
	if len(rep) != 1 || rep[0].Extent != 4 || rep[0].Stride != 32 || rep[0].Axis != layout.TLane {
		return c.Declinef(c.ArgSpan(0), "requires R[4:32@TLane] on tmem, got replica=%s", iterListRepr(rep))
	}
	return nil
}

// iterListRepr prints a Python list of TVM Iters: [T.Iter(4, 32, "TLane")].
func iterListRepr(its []layout.Iter) string {
	parts := make([]string, len(its))
	for i, it := range its {
		parts[i] = "T.Iter(" + strconv.FormatInt(it.Extent, 10) + ", " + strconv.FormatInt(it.Stride, 10) + `, "` + it.Axis.Name + `")`
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
