package copy

// copy/gmem_smem: vectorized copy between global and shared memory, with no
// register side (spec §4.1).
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy/
// gmem_smem.py and copy/_common.py (align_layouts_gs, _carve_tail,
// _verify_s_tail_contig) at PRE abe2526b3e; SEED runs the same code as the
// first half of vec_auto. The per-thread partition comes from the scope:
// the thread_cnt cooperating threads each take vec consecutive elements per
// round, total_outer rounds, [outer, thread, vec] carved from the global
// side's stride-sorted layout, the shared side grouped to match. The widest
// vector (16 B down to one element) whose strides and offsets keep every
// access naturally aligned, and that fits in one swizzle chunk, wins.
//
// Rejects (predicate gmem_smem_applicable, first failure only): non-cuda
// target, an exec scope other than thread/warp/warpgroup/cta, narrowed
// scopes (_all_threads_active), invalid copies, scope pairs other than
// global<->shared*, and regions whose size does not divide thread_cnt.
// Never declines inside the emitter: layouts that do not align degrade to
// vec = 1.
//
// Emits the seed CUDA form (spec §5.3a/b): a serial loop over total_outer of
// T.cuda.copy_bytes(ptr_offset(&dst[0], off), ptr_offset(&src[0], off), N);
// a swizzled shared layout gets the full XOR formula per iteration, or the
// §4.1.1 signed-stride fast path when it applies. The partition and the
// emitter (emitGS) are shared with copy_async/ldgsts (copy_async/ldgsts.go).

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var GmemSmem = dispatch.Variant{
	Op: "copy", Name: "gmem_smem", Target: "cuda", Priority: 10, Releases: release.Only(release.R025),
	Renamed: []string{"vec_auto"}, // 0.26's name for gmem_smem and reg
	When:    []dispatch.Pred{{Name: "gmem_smem_applicable", Check: isGmemSmem}},
	Emit:    emitGmemSmem,
}

func isGmemSmem(c *dispatch.Call) *dispatch.Decline { return common.FirstFailure(c, gmemSmemChecks...) }

// gmemSmemChecks is built once: building the check closures (and the
// variadic slice) on every call, here and in reg and ldstmatrix, was 5% of
// BenchmarkDispatch3000 allocations (80.5k → 76.3k allocs/op).
var gmemSmemChecks = []common.Check{
	common.CudaTarget,
	common.ExecScopeIn("", "thread", "warp", "warpgroup", "cta"),
	common.AllThreadsActive,
	common.IsValidCopy,
	common.ScopeAllowed(common.GmemSmemPairs),
	common.DividesThreadCnt,
	common.SliceableRegions,
}

// gsAlignment is the result of align_layouts_gs.
type gsAlignment struct {
	G, S *layout.TileLayout
	Vec  int64
	// gSym, sSym are the symbolic start offsets (nil when static).
	gSym, sSym ir.Expr
}

// alignLayoutsGS is TVM align_layouts_gs (spec §4.1 step 1). allowedBits
// restricts the vector widths (cp.async); nil means {128..8} plus scalar.
func AlignLayoutsGS(g, s common.Region, elemBits int, t int64, allowedBits []int) gsAlignment {
	gs, ok1 := common.SliceLayout(g)
	ss, ok2 := common.SliceLayout(s)
	if !ok1 || !ok2 {
		dispatch.Raise("AttributeError", "'NoneType' object has no attribute 'shard'")
	}
	chunk := int64(0)
	if cl, ok := s.Lay.(*layout.ComposeLayout); ok {
		chunk = int64(1) << cl.PerElement
	}
	gSym, sSym := common.MemSym(g), common.MemSym(s)
	gt := layout.StripSwizzleToTile(gs, g.Exts)
	st := layout.StripSwizzleToTile(ss, s.Exts)

	// Scratch slices live on the stack (NewTile and TryGroup copy what they
	// keep; layout.PermuteByGroups no longer leaks perm): 3% of
	// BenchmarkDispatch3000 allocations (63.9k → 61.9k allocs/op).
	var preBuf [16]int64
	gPre := preBuf[:0]
	for _, it := range gt.Shard {
		gPre = append(gPre, it.Extent)
	}
	gPerm := make([]int, len(gt.Shard))
	for i := range gPerm {
		gPerm[i] = i
	}
	sortStable(gPerm, func(a, b int) bool { return gt.Shard[a].Stride > gt.Shard[b].Stride })
	sGrp, seps, ok := layout.TryGroup(st, gPre)
	if !ok {
		return gsAlignment{common.Canon(common.SortByStrideDesc(gt)), st, 1, gSym, sSym}
	}
	sAligned := common.Canon(layout.PermuteByGroups(sGrp, seps, gPerm))
	gc := common.Canon(common.SortByStrideDesc(gt))

	var dummy *layout.Axis
	if len(gc.Shard) > 0 {
		dummy = gc.Shard[len(gc.Shard)-1].Axis
	}
	var candBuf [8]int64
	var afterBuf, finalBuf [16]layout.Iter
	var shapeBuf [16]int64
	for _, v := range common.AppendVecCandidates(candBuf[:0], elemBits, allowedBits) {
		var after []layout.Iter
		if v == 1 {
			after = append(append(afterBuf[:0], gc.Shard...), layout.It(1, 1, dummy))
		} else {
			if chunk != 0 && v > chunk {
				continue
			}
			if after, ok = common.CarveTail(gc.Shard, v); !ok {
				continue
			}
		}
		outer := after[:len(after)-1]
		if t > 1 {
			if outer, ok = common.CarveTail(outer, t); !ok {
				continue
			}
		}
		final := append(append(finalBuf[:0], outer...), after[len(after)-1])
		shape := shapeBuf[:0]
		for _, it := range final {
			shape = append(shape, it.Extent)
		}
		sp, _, ok := layout.TryGroup(sAligned, shape)
		if !ok {
			continue
		}
		gp := layout.NewTile(final, gc.Replica, gc.Offset)
		if !common.VerifyTail(sp, v) {
			continue
		}
		if !aligned(v, sp, gp) || !common.Divisible(gSym, v) || !common.Divisible(sSym, v) {
			continue
		}
		return gsAlignment{gp, sp, v, gSym, sSym}
	}
	return gsAlignment{gc, sAligned, 1, gSym, sSym}
}

// aligned checks every outer/thread stride and every offset of both sides
// is a multiple of v (TVM _alignment_ok on align_terms).
func aligned(v int64, ls ...*layout.TileLayout) bool {
	if v <= 1 {
		return true
	}
	for _, l := range ls {
		for _, it := range l.Shard[:max(0, len(l.Shard)-1)] {
			if it.Stride%v != 0 {
				return false
			}
		}
		for _, o := range l.Offset {
			if o%v != 0 {
				return false
			}
		}
	}
	return true
}

func sortStable(xs []int, less func(a, b int) bool) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && less(xs[j], xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

func emitGmemSmem(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return EmitGS(c, GsEmit{Loop: ir.Serial, Xfer: common.CopyBytes})
}

// gsEmit is what a variant built on align_layouts_gs chooses: gmem_smem
// (every width, a serial loop of copy_bytes) or ldgsts (cp.async widths, an
// unrolled loop of cp.async).
type GsEmit struct {
	// allowedBits restricts the vector widths (nil: {128..8} plus scalar).
	AllowedBits []int
	// loop is the kind of the loop over total_outer.
	Loop ir.ForKind
	// vecOK, when set, vets the chosen transfer size in bytes; a decline
	// stops the emission.
	VecOK func(c *dispatch.Call, numBytes int64, elemBits int) *dispatch.Decline
	// xfer moves numBytes from src to dst (both pointer expressions).
	Xfer func(dst, src ir.Expr, numBytes int64, span source.Span) ir.Stmt
	// note, when set, is appended to the result's notes.
	Note string
	// FullSwizzle drops the signed-stride fast path: the shared address is
	// the whole swizzle formula on every round (0.27's recompose_swizzle).
	FullSwizzle bool
}

// emitGS is the emitter shared by gmem_smem and ldgsts (spec §4.1 steps
// 2–5): partition, thread index, swizzle handling, one transfer per round.
func EmitGS(c *dispatch.Call, cfg GsEmit) (*dispatch.Result, *dispatch.Decline) {
	src, _ := common.ConstRegion(c, 1)
	dst, _ := common.ConstRegion(c, 0)
	g, s, gIsSrc := src, dst, true
	if src.Buf.Scope != "global" {
		g, s, gIsSrc = dst, src, false
	}
	elemBits := src.Buf.Dtype.Bits
	t := c.ThreadCnt()
	al := AlignLayoutsGS(g, s, elemBits, t, cfg.AllowedBits)
	gp, sp, v := al.G, al.S, al.Vec
	numBytes := v * int64(elemBits) / 8
	if cfg.VecOK != nil {
		if d := cfg.VecOK(c, numBytes, elemBits); d != nil {
			return nil, d
		}
	}
	n := layout.Size(sp, nil)
	if n%(t*v) != 0 {
		dispatch.Raise("AssertionError", "partition produced %d elements but thread_cnt(%d) * vec_len(%d) = %d doesn't divide it", n, t, v, t*v)
	}
	totalOuter := n / (t * v)
	applyShape := []int64{totalOuter, t, v}
	span := c.Span()

	var tid ir.Expr = common.Cst(0)
	if t > 1 {
		tid = c.AxisDecl(common.TidAxisForScope[c.Scope])
	}

	// Outer iters of the shared side (spec §4.1 step 4).
	var outerS []layout.Iter
	if t > 1 {
		acc, i := int64(1), len(sp.Shard)-2
		for i >= 0 && acc < t {
			e := sp.Shard[i].Extent
			if acc*e > t {
				break
			}
			acc *= e
			i--
		}
		if acc == t {
			outerS = sp.Shard[:i+1]
		}
	} else if len(sp.Shard) > 0 {
		outerS = sp.Shard[:len(sp.Shard)-1]
	}
	sw := layout.BareSwizzle(s.Lay)
	var pat *swizzlePattern
	if sw != nil && len(outerS) > 0 && al.sSym == nil && !cfg.FullSwizzle {
		offs := make([]int64, t)
		apply := layout.ShapeApplier(sp, applyShape, layout.M)
		for k := range offs {
			offs[k] = apply([]int64{0, int64(k), 0})
		}
		exts, strides := make([]int64, len(outerS)), make([]int64, len(outerS))
		for i, it := range outerS {
			exts[i], strides[i] = it.Extent, it.Stride
		}
		pat = tryRecognize(sw, exts, strides, offs)
	}

	var stmts []ir.Stmt
	var st swizzleState
	if pat != nil {
		init, s0 := emitInit(pat, common.ApplyExpr(sp, []ir.Expr{common.Cst(0), tid, common.Cst(0)}, applyShape), span)
		stmts = append(stmts, init...)
		st = s0
	}
	stmts = append(stmts, loopOf(cfg.Loop, "f", totalOuter, span, func(f ir.Expr) []ir.Stmt {
		sLin := addSym(common.ApplyExpr(sp, []ir.Expr{f, tid, common.Cst(0)}, applyShape), al.sSym)
		gLin := addSym(common.ApplyExpr(gp, []ir.Expr{f, tid, common.Cst(0)}, applyShape), al.gSym)
		var body []ir.Stmt
		sOff := sLin
		switch {
		case pat != nil:
			sOff = emitIterOffset(pat, st, f, span)
		case sw != nil && cfg.FullSwizzle:
			sOff = common.SwizzleExpr(sw, sLin)
		case sw != nil:
			if _, isConst := ir.ConstInt(sLin); !isConst {
				lin := &ir.Var{Name: "s_lin", Type: ir.Int32, Span: span}
				body = append(body, &ir.Let{Var: lin, Value: sLin, Span: span})
				sLin = lin
			}
			sOff = common.SwizzleExpr(sw, sLin)
		}
		sPtr := common.PtrOff(s.Buf, sOff, span)
		gPtr := common.PtrOff(g.Buf, gLin, span)
		if gIsSrc {
			return append(body, cfg.Xfer(sPtr, gPtr, numBytes, span))
		}
		return append(body, cfg.Xfer(gPtr, sPtr, numBytes, span))
	})...)

	res := &dispatch.Result{
		Body:      &ir.Block{Stmts: stmts, Span: span},
		Vec:       v,
		VecBits:   v * int64(elemBits),
		Outer:     totalOuter,
		Threads:   t,
		Partition: common.PartitionString(gp),
	}
	res.Notes = append(res.Notes, "shared partition "+sp.String())
	if sw != nil {
		if pat != nil {
			res.Notes = append(res.Notes, "swizzle fast path: signed strides")
		} else {
			res.Notes = append(res.Notes, "swizzle: full formula per iteration")
		}
	}
	if cfg.Note != "" {
		res.Notes = append(res.Notes, cfg.Note)
	}
	return res, nil
}

func addSym(e, sym ir.Expr) ir.Expr {
	if sym == nil {
		return e
	}
	return ir.AddE(e, sym)
}

// loopOf is serialLoop with a loop kind: ldgsts unrolls its rounds, as
// TVM's T.unroll does, where gmem_smem keeps a serial loop.
func loopOf(kind ir.ForKind, name string, n int64, span source.Span, body func(f ir.Expr) []ir.Stmt) []ir.Stmt {
	stmts := common.SerialLoop(name, n, span, body)
	if n != 1 {
		stmts[0].(*ir.For).Kind = kind
	}
	return stmts
}
