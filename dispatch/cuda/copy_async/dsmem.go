package copyasync

// copy_async/dsmem: shared::cta -> shared::cluster copy into another CTA of
// the cluster (cp.async.bulk.shared::cluster.shared::cta, completing on the
// remote CTA's mbarrier), priority 10.
//
// Mirrors the predicates and the planning of TVM python/tvm/backend/cuda/
// operator/tile_primitive/copy_async/dsmem.py at PRE abe2526b3e.
//
// Rejects (every predicate is evaluated, TVM's names and messages):
// validate_copy_op ("not a valid copy op"), single_thread ("unsupported
// exec_scope T.ExecScope(\"warp\"), expected single thread": TVM formats
// sctx.exec_scope, an ExecScope object, whose str() is its script form) and
// is_shared_to_shared ("not a shared-to-shared copy").
//
// tilels does not lower dsmem copies: once the predicates pass, the emitter
// runs TVM's checks and plan, declining as TVM does when remote_cta_id or
// mbar is missing from the config, when a layout cannot be sliced, or when
// the two layouts share no contiguous run of a multiple of 16 bytes; then it
// always declines with "tilels does not lower dsmem copies yet
// (cp.async.bulk shared::cluster); TVM would issue 8 bulk copies of 256
// bytes", so the call is reported, with TVM's plan, instead of lowered.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
)

var Dsmem = dispatch.Variant{
	Op: "copy_async", Name: "dsmem", Target: "cuda", Priority: 10,
	When: []dispatch.Pred{
		{Name: "validate_copy_op", Check: dsmemValidCopy},
		{Name: "single_thread", Check: dsmemSingleThread},
		{Name: "is_shared_to_shared", Check: dsmemSharedToShared},
	},
	Emit: emitDsmem,
}

func dsmemValidCopy(c *dispatch.Call) *dispatch.Decline {
	if !common.ValidateCopy(c) {
		return c.Decline(c.Span(), "not a valid copy op")
	}
	return nil
}

// dsmemSingleThread is TVM single_thread with dsmem's message, which prints
// sctx.exec_scope (an ExecScope object) in its TVMScript form.
func dsmemSingleThread(c *dispatch.Call) *dispatch.Decline {
	if c.Scope != "thread" {
		return c.Declinef(common.OpSpan(c), "unsupported exec_scope %s, expected single thread", execScopeRepr(c.Scope))
	}
	return nil
}

// execScopeRepr is str(ExecScope(kind)) in TVM: T.ExecScope("warp").
func execScopeRepr(kind string) string { return `T.ExecScope("` + kind + `")` }

func dsmemSharedToShared(c *dispatch.Call) *dispatch.Decline {
	if !common.MatchScope(c.Src().Buf.Scope, "shared*") || !common.MatchScope(c.Dst().Buf.Scope, "shared*") {
		return c.Decline(c.Span(), "not a shared-to-shared copy")
	}
	return nil
}

func emitDsmem(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	if _, ok := c.Config("remote_cta_id"); !ok {
		return nil, c.Decline(c.Span(), "remote_cta_id not set in config")
	}
	if _, ok := c.Config("mbar"); !ok {
		return nil, c.Decline(c.Span(), "mbar not set in config")
	}
	const why = "tilels does not lower dsmem copies yet (cp.async.bulk shared::cluster)"
	p, d := planDsmem(c)
	switch {
	case d != nil:
		return nil, d
	case p == nil:
		return nil, c.Decline(c.Span(), why)
	}
	copies := "copies"
	if p.copies == 1 {
		copies = "copy"
	}
	return nil, c.Declinef(c.Span(), "%s; TVM would issue %d bulk %s of %d bytes", why, p.copies, copies, p.chunkBytes)
}

// dsmemPlan is what TVM's copy_dsmem_impl would issue: copies
// cp.async.bulk instructions of chunkBytes bytes each.
type dsmemPlan struct{ copies, chunkBytes int64 }

// planDsmem runs TVM's dsmem planning: slice both layouts to their regions,
// group the source by the region extents and the destination by the
// source's iters, intersect the contiguous chains of both from the
// innermost iter out, and loop over the rest. It returns nil, nil when a
// region is symbolic (tilels slices constant regions only).
func planDsmem(c *dispatch.Call) (*dsmemPlan, *dispatch.Decline) {
	src, ok1 := common.ConstRegion(c, 1)
	dst, ok2 := common.ConstRegion(c, 0)
	if !ok1 || !ok2 || !src.Static || !dst.Static {
		return nil, nil
	}
	ss := dsmemSlice(src)
	if ss == nil {
		return nil, c.Decline(src.Span, "Cannot slice src layout for DSMEM copy")
	}
	ds := dsmemSlice(dst)
	if ds == nil {
		return nil, c.Decline(dst.Span, "Cannot slice dst layout for DSMEM copy")
	}
	gs := mustGroup(common.Canon(ss), src.Exts)
	gd := mustGroup(common.Canon(ds), gs.Extents())
	sc, dc := contiguousChain(gs), contiguousChain(gd)
	shared := map[int]bool{}
	chunk := int64(1)
	for i := 0; i < len(sc) && i < len(dc) && sc[i] == dc[i]; i++ {
		shared[sc[i]] = true
		chunk *= gs.Shard[sc[i]].Extent
	}
	chunkBytes := chunk * int64(src.Buf.Dtype.Bits) / 8
	if chunkBytes < 16 || chunkBytes%16 != 0 {
		return nil, c.Declinef(c.Span(), "Layouts not compatible for bulk DSMEM copy: chunk_bytes=%d (need >= 16 and multiple of 16)", chunkBytes)
	}
	copies := int64(1)
	for i, it := range gs.Shard {
		if !shared[i] {
			copies *= it.Extent
		}
	}
	return &dsmemPlan{copies, chunkBytes}, nil
}

// dsmemSlice is TVM to_tile_layout then slice: a ComposeLayout stands for
// its tile (a bare swizzle for the row-major layout of the buffer). nil
// when the region is not representable.
func dsmemSlice(g common.Region) *layout.TileLayout {
	t := layout.ToTile(g.Lay)
	if layout.IsBareSwizzle(g.Lay) {
		t = layout.RowMajor(g.Buf.Shape...)
	}
	l, err := layout.SliceTile(t, g.Buf.Shape, g.Bounds)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	return l
}

func mustGroup(l *layout.TileLayout, shape []int64) *layout.TileLayout {
	g, _, err := layout.Group(l, shape)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	return g
}

// contiguousChain is TVM find_contiguous_region: the indices of the memory
// iters (extent > 1) that chain from stride 1 outwards, each next iter's
// stride being the product of the extents so far (first match in shard
// order).
func contiguousChain(l *layout.TileLayout) []int {
	var chain []int
	used := map[int]bool{}
	want := int64(1)
	for {
		next := -1
		for i, it := range l.Shard {
			if it.Axis.IsMemory() && it.Extent != 1 && !used[i] && it.Stride == want {
				next = i
				break
			}
		}
		if next < 0 {
			return chain
		}
		used[next] = true
		chain = append(chain, next)
		want *= l.Shard[next].Extent
	}
}
