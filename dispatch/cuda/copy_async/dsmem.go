package copyasync

// copy_async/dsmem: shared::cta -> shared::cluster copy into another CTA of
// the cluster (cp.async.bulk.shared::cluster.shared::cta, completing on the
// remote CTA's mbarrier), priority 10.
//
// Mirrors the predicates and the planning of TVM python/tvm/backend/cuda/
// operator/tile_primitive/copy_async/dsmem.py (apache-tvm 0.25.0.post1).
//
// Rejects (every predicate is evaluated, TVM's names and messages):
// validate_copy_op ("not a valid copy op"), single_thread ("unsupported
// exec_scope T.ExecScope(\"warp\"), expected single thread": TVM formats
// sctx.exec_scope, an ExecScope object, whose str() is its script form) and
// is_shared_to_shared ("not a shared-to-shared copy").
//
// Lowering (copy_dsmem_impl): remote_cta_id and mbar must be set in the
// config; both layouts (a swizzle stands for its tile, a bare swizzle for
// the row-major layout) are sliced to the regions, the source is grouped
// by the region extents and the destination by the source's iters, the
// contiguous chains of both are intersected from the innermost iter out
// (a chunk of at least 16 bytes, a multiple of 16), and the remaining
// iters are looped over (T.grid, outermost first), each iteration issuing
//
//	cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
//	    [mapa(dst chunk, remote_cta_id)], [src chunk], chunk_bytes,
//	    [mapa(mbar, remote_cta_id)]
//
// Needs sm_90 (mapa and cp.async.bulk shared::cluster).

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
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
	remote, ok := c.Config("remote_cta_id")
	if !ok || isNone(remote) {
		return nil, c.Decline(c.Span(), "remote_cta_id not set in config")
	}
	mbar, ok := c.Config("mbar")
	if !ok || isNone(mbar) {
		return nil, c.Decline(c.Span(), "mbar not set in config")
	}
	p, d := planDsmem(c)
	if d != nil {
		return nil, d
	}
	return buildDsmem(c, p, remote, mbar), nil
}

// isNone reports whether a config value is Python None.
func isNone(e ir.Expr) bool { return e == nil }

// dsmemPlan is what TVM's copy_dsmem_impl issues: copies cp.async.bulk
// instructions of chunkBytes bytes each, looping over outer (extent,
// source stride, destination stride), outermost first.
type dsmemPlan struct {
	copies, chunkBytes int64
	outer              []dsmemLoop
	src, dst           common.Region
	srcTile, dstTile   *layout.TileLayout
}

type dsmemLoop struct{ extent, srcStride, dstStride int64 }

// planDsmem runs TVM's dsmem planning: slice both layouts to their regions,
// group the source by the region extents and the destination by the
// source's iters, intersect the contiguous chains of both from the
// innermost iter out, and loop over the rest. A symbolic region start is
// planned at the region's extents from 0 (its offset moves the pointers,
// not the chunking).
func planDsmem(c *dispatch.Call) (*dsmemPlan, *dispatch.Decline) {
	src, ok1 := common.ConstRegion(c, 1)
	dst, ok2 := common.ConstRegion(c, 0)
	if !ok1 || !ok2 {
		dispatch.Raise("TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'PrimExpr'")
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
	p := &dsmemPlan{copies: 1, chunkBytes: chunkBytes, src: src, dst: dst,
		srcTile: dsmemTile(src), dstTile: dsmemTile(dst)}
	for i, it := range gs.Shard {
		if !shared[i] {
			p.copies *= it.Extent
			p.outer = append(p.outer, dsmemLoop{it.Extent, it.Stride, gd.Shard[i].Stride})
		}
	}
	return p, nil
}

// buildDsmem emits the bulk copies of p.
func buildDsmem(c *dispatch.Call, p *dsmemPlan, remote, mbar ir.Expr) *dispatch.Result {
	span := c.Span()
	u64 := ir.DataType{Code: ir.UInt, Bits: 64}
	mapa := func(ptr ir.Expr) ir.Expr {
		return &ir.Call{Op: ir.OpMapSharedRank, Args: []ir.Expr{ptr, remote}, Type: u64, Span: span}
	}
	srcBase := common.ApplyExpr(p.srcTile, p.src.Mins, p.src.Buf.Shape)
	dstBase := common.ApplyExpr(p.dstTile, p.dst.Mins, p.dst.Buf.Shape)
	v027 := c.Target.Release >= release.R027
	var mapped *ir.Buffer
	var pre []ir.Stmt
	if v027 {
		// 0.27: mapa.u64 into a 2-element local scratch (the remote mbarrier
		// first), then the string op with uint32 operands.
		mapped = &ir.Buffer{Name: "mapped", Shape: []int64{2}, Dtype: u64, Scope: "local", Layout: layout.RowMajor(2), Kind: ir.AllocBuffer, Span: span}
		pre = append(pre, &ir.Alloc{Buf: mapped, Span: span}, mapa027(mapped, 0, mbar, remote, span))
	}
	issue := func(srcOff, dstOff ir.Expr) ir.Stmt {
		sp := &ir.AddressOf{Buf: p.src.Buf, Indices: []ir.Expr{ir.SimplifyIndex(ir.AddE(srcBase, srcOff))}, FlatIndex: true, Span: span}
		dp := &ir.AddressOf{Buf: p.dst.Buf, Indices: []ir.Expr{ir.SimplifyIndex(ir.AddE(dstBase, dstOff))}, FlatIndex: true, Span: span}
		if v027 {
			u32 := ir.DataType{Code: ir.UInt, Bits: 32}
			at := func(i int64) ir.Expr {
				return &ir.Cast{To: u32, X: &ir.Load{Buf: mapped, Indices: []ir.Expr{common.Cst(i)}, Span: span}, Span: span}
			}
			cp := &ir.Call{Op: ir.OpCpAsyncBulkS2CStr, Args: []ir.Expr{at(1), sp, &ir.IntImm{Value: p.chunkBytes, Type: u32, Span: span}, at(0)}, Span: span}
			return &ir.Block{Stmts: []ir.Stmt{mapa027(mapped, 1, dp, remote, span), &ir.Evaluate{X: cp, Span: span}}, Span: span}
		}
		call := &ir.Call{Op: ir.OpCpAsyncBulkS2C, Args: []ir.Expr{mapa(dp), sp, common.Cst(p.chunkBytes), mapa(mbar)}, Span: span}
		return &ir.Evaluate{X: call, Span: span}
	}
	var nest func(d int, so, do ir.Expr) []ir.Stmt
	nest = func(d int, so, do ir.Expr) []ir.Stmt {
		if d == len(p.outer) {
			return []ir.Stmt{issue(so, do)}
		}
		l := p.outer[d]
		name := "loop_vars"
		if len(p.outer) > 1 {
			name = fmt.Sprintf("loop_vars_%d", d)
		}
		return common.SerialLoop(name, l.extent, span, func(v ir.Expr) []ir.Stmt {
			return nest(d+1, ir.AddE(so, ir.MulE(v, common.Cst(l.srcStride))), ir.AddE(do, ir.MulE(v, common.Cst(l.dstStride))))
		})
	}
	body := append(pre, nest(0, common.Zero, common.Zero)...)
	loops := []string{}
	for _, l := range p.outer {
		loops = append(loops, fmt.Sprintf("%d (src +%d, dst +%d elements)", l.extent, l.srcStride, l.dstStride))
	}
	loopText := "none (one contiguous chunk)"
	if len(loops) > 0 {
		loopText = strings.Join(loops, " x ")
	}
	copies := "copies"
	if p.copies == 1 {
		copies = "copy"
	}
	plan := []dispatch.PlanItem{
		{Key: "instruction", Value: "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"},
		{Key: "instructions", Value: fmt.Sprintf("%d", p.copies)},
		{Key: "chunk", Value: fmt.Sprintf("%d bytes", p.chunkBytes)},
		{Key: "loops", Value: loopText},
		{Key: "bytes moved", Value: fmt.Sprintf("%d", p.copies*p.chunkBytes)},
		{Key: "remote", Value: "destination and mbarrier mapped to CTA " + dispatch.ExprText(remote) + " of the cluster (mapa.u64); complete_tx on its mbarrier"},
	}
	notes := []string{fmt.Sprintf("%d bulk %s of %d bytes to the remote CTA", p.copies, copies, p.chunkBytes)}
	if cl := c.Launch.Cluster; cl[0]*cl[1]*cl[2] <= 1 {
		// Seen on an H100: mapa and cp.async.bulk.shared::cluster trap
		// (illegal instruction) in a kernel launched without a cluster.
		const why = "the kernel declares no cluster (T.cta_id_in_cluster): cp.async.bulk.shared::cluster traps outside a cluster launch"
		notes = append(notes, why)
		plan = append(plan, dispatch.PlanItem{Key: "launch", Value: why})
	}
	return &dispatch.Result{Body: &ir.Block{Stmts: body, Span: span}, Outer: p.copies, Threads: 1, Plan: plan, Notes: notes}
}

// dsmemTile is TVM to_tile_layout: a swizzle's tile, the row-major layout
// for a bare swizzle.
func dsmemTile(g common.Region) *layout.TileLayout {
	if layout.IsBareSwizzle(g.Lay) {
		return layout.RowMajor(g.Buf.Shape...)
	}
	return layout.ToTile(g.Lay)
}

// dsmemSlice is TVM to_tile_layout then slice: a ComposeLayout stands for
// its tile (a bare swizzle for the row-major layout of the buffer). nil
// when the region is not representable.
func dsmemSlice(g common.Region) *layout.TileLayout {
	t := dsmemTile(g)
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

// mapa027 is 0.27's T.ptx.mapa.u64(mapped[i], ptr, T.uint32(rank)).
func mapa027(mapped *ir.Buffer, i int64, ptr, rank ir.Expr, span source.Span) ir.Stmt {
	u32 := ir.DataType{Code: ir.UInt, Bits: 32}
	return &ir.Evaluate{X: &ir.Call{Op: ir.OpPtxMapaU64, Args: []ir.Expr{
		&ir.Load{Buf: mapped, Indices: []ir.Expr{common.Cst(i)}, Span: span}, ptr, &ir.Cast{To: u32, X: rank, Span: span}}, Span: span}, Span: span}
}
