package reduction

// reduction/local: Tx.<scope>.sum / max / min on register (scope "local")
// buffers, variant `local`, priority 10, predicates `storage_scope` (dst
// and src local) and `local_valid`. Mirrors TVM backend/cuda/operator/
// tile_primitive/reduction/local.py (0.25.0.post1).
//
// Thread scope: a serial loop over the spatial positions (dst = identity
// unless accum), each folding the reduction positions in serially, on the
// regions' logical indices.
//
// Warp scope, laneid shard -> replica: when src's canonical layout has
// laneid iters in its shard spanning the 32 lanes and dst's has laneid
// iters in its replica (a power-of-two count w of lanes holding one
// result), every lane copies its local_elems registers (the product of
// src's other shard extents) into dst's and runs T.cuda.warp_reduce over
// groups of w lanes, whatever the axes.
//
// Warp and warpgroup scope, otherwise (the "view" path): both layouts must
// be TileLayouts without swizzle, zero-stride thread iters or thread
// replicas; each region must be a rectangle of whole thread iters
// (get_local_region), and dst's sliced layout must be src's with the
// reduce dims' registers dropped. Each thread folds its own registers of
// the reduce dims into each of its dst registers through .local() views;
// with thread_reduce=True (warp scope only) the partial results are then
// combined across the lanes of the reduce dims by shuffle-xor steps (one
// per bit of each laneid iter of a reduce dim). accum with thread_reduce
// saves the old dst value first and folds it in after the shuffles;
// src == dst (in place) only shuffles.
//
// Rejects (local_valid): "expected local scope and CUDA target", dtype
// mismatch, thread_reduce at warpgroup scope, missing or non-Tile or
// swizzled layouts, a zero-stride thread iter or a thread replica, a
// region get_local_region cannot express, an axis out of range, dst/src
// layouts that do not match, other scopes.

import (
	"fmt"
	"slices"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

var laneAxis = layout.AxisByName("laneid")

// shuffleReduce is TVM _analyze_shuffle_reduce: the lanes per result and
// the registers per lane of a laneid shard -> replica reduction.
func shuffleReduce(src, dst layout.Layout) (width, localElems int64, ok bool) {
	s, ok1 := src.(*layout.TileLayout)
	d, ok2 := dst.(*layout.TileLayout)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	sc, dc := layout.CanonicalTile(s), layout.CanonicalTile(d)
	span := int64(1)
	var lanes int
	localElems = 1
	for _, it := range sc.Shard {
		if it.Axis == laneAxis {
			lanes++
			st := it.Stride
			if st < 0 {
				st = -st
			}
			span += st * (it.Extent - 1)
		} else {
			localElems *= it.Extent
		}
	}
	if lanes == 0 {
		return 0, 0, false
	}
	width = 1
	reps := 0
	for _, it := range dc.Replica {
		if it.Axis == laneAxis {
			reps++
			width *= it.Extent
		}
	}
	if reps == 0 || span != 32 {
		return 0, 0, false
	}
	if width <= 0 || width > 32 || width&(width-1) != 0 {
		return 0, 0, false
	}
	return width, localElems, true
}

// localValid is TVM validate_reduction_local.
func localValid(c *dispatch.Call) *dispatch.Decline {
	r := args(c)
	dst, src := r.dst.Buf, r.src.Buf
	if !(src.Scope == "local" && dst.Scope == "local" && c.Target.IsCUDA()) {
		return c.Decline(c.Span(), "expected local scope and CUDA target")
	}
	if src.Dtype != dst.Dtype {
		return c.Declinef(c.Span(), "dtype mismatch: src=%s dst=%s", src.Dtype, dst.Dtype)
	}
	switch c.Scope {
	case "thread":
		return nil
	case "warp", "warpgroup":
	default:
		return c.Declinef(common.OpSpan(c), "unsupported exec_scope %s for local reduction", c.Scope)
	}
	if c.Scope != "warp" && r.threadReduce {
		return c.Decline(c.ConfigSpan("thread_reduce"), "thread_reduce=True is only supported in warp scope; "+
			"warpgroup local reduction is thread-local only")
	}
	if src.Layout == nil || dst.Layout == nil {
		return c.Decline(c.Span(), "layouts required for view-based local reduction")
	}
	sl, ok1 := src.Layout.(*layout.TileLayout)
	dl, ok2 := dst.Layout.(*layout.TileLayout)
	if !ok1 || !ok2 {
		return c.Decline(c.Span(), "TileLayout required for view-based local reduction")
	}
	if c.Scope == "warp" {
		if _, _, ok := shuffleReduce(sl, dl); ok {
			return nil
		}
	}
	for _, o := range []struct {
		l    *layout.TileLayout
		g    common.Region
		name string
		arg  int
	}{{sl, r.src, "src", 1}, {dl, r.dst, "dst", 0}} {
		for _, it := range o.l.Shard {
			if it.Axis.IsThread() && it.Stride == 0 {
				return c.Declinef(c.ArgSpan(o.arg), "thread dim with zero stride in %s", o.name)
			}
		}
		for _, it := range o.l.Replica {
			if it.Axis.IsThread() {
				return c.Declinef(c.ArgSpan(o.arg), "thread axis in replica for %s", o.name)
			}
		}
		if _, ok := getLocalRegion(o.l, o.g.Buf.Shape, o.g.Mins, o.g.Exts); !ok {
			return c.Declinef(c.ArgSpan(o.arg), "get_local_region failed for %s", o.name)
		}
	}
	reduceDims, _, msg := analyzeAxes(len(r.src.Exts), r.axes)
	if msg != "" {
		return c.Decline(c.ArgSpan(2), msg)
	}
	if m := validateLayouts(sublayout(r.src), sublayout(r.dst), r.src.Exts, r.dst.Exts, reduceDims); m != "" {
		return c.Decline(c.Span(), m)
	}
	return nil
}

// emitLocal is TVM reduction_local_impl.
func emitLocal(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	r := args(c)
	op := opOf(c)
	reduceDims, spatialDims := mustAxes(len(r.src.Exts), r.axes)
	switch c.Scope {
	case "thread":
		return emitLocalThread(c, r, op, reduceDims, spatialDims), nil
	case "warp", "warpgroup":
	default:
		return nil, c.Declinef(common.OpSpan(c), "unsupported exec_scope %s for reduction_local_impl", c.Scope)
	}
	if c.Scope == "warp" {
		if w, n, ok := shuffleReduce(r.src.Buf.Layout, r.dst.Buf.Layout); ok {
			return emitWarpShuffle(c, r, op, w, n), nil
		}
	} else if r.threadReduce {
		return nil, c.Decline(c.ConfigSpan("thread_reduce"), "thread_reduce=True is only supported in warp scope; "+
			"warpgroup local reduction is thread-local only")
	}
	return emitLocalView(c, r, op, reduceDims, spatialDims), nil
}

// emitLocalThread is TVM _emit_reduction_local_thread_wise.
func emitLocalThread(c *dispatch.Call, r *redCall, op redOp, reduceDims, spatialDims []int) *dispatch.Result {
	sp := c.Span()
	src := r.src.Buf
	body, spaLen, redLen := serialReduce(r, op, reduceDims, spatialDims, "spa", "red", sp)
	return &dispatch.Result{
		Body: &ir.Block{Stmts: body, Span: sp}, Threads: 1,
		Plan: []dispatch.PlanItem{
			plan("path", "thread-wise serial reduction"),
			plan("result", "the calling thread's registers"),
			plan("outputs", fmt.Sprint(spaLen)),
			plan("serial per output", fmt.Sprint(redLen)),
			plan("reduce dims", fmt.Sprint(reduceDims)),
			plan("init", initText(r.accum, op, src.Dtype)),
		},
	}
}

func initText(accum bool, op redOp, dt ir.DataType) string {
	if accum {
		return "accum: dst's value is folded in"
	}
	return "dst = " + dispatch.ExprText(op.identity(dt, source.NoSpan))
}

// emitWarpShuffle is TVM _gen_warp_shuffle_reduce.
func emitWarpShuffle(c *dispatch.Call, r *redCall, op redOp, width, n int64) *dispatch.Result {
	sp := c.Span()
	dst, src := r.dst.Buf, r.src.Buf
	sv := localView("src_local", src, []int64{n}, sp)
	dv := localView("dst_local", dst, []int64{n}, sp)
	same := src == dst
	body := []ir.Stmt{&ir.Decl{Buf: dv, Span: sp}}
	if !same {
		body = []ir.Stmt{&ir.Decl{Buf: sv, Span: sp}, &ir.Decl{Buf: dv, Span: sp}}
	}
	body = append(body, loop("k", n, ir.Serial, sp, func(k ir.Expr) []ir.Stmt {
		idx := []ir.Expr{k}
		var out []ir.Stmt
		if !same {
			out = append(out, store(dv, idx, load(sv, idx, sp), sp))
		}
		red := &ir.Call{Op: ir.OpCudaWarpReduce, Args: []ir.Expr{load(dv, idx, sp),
			&ir.StringImm{Value: op.String(), Span: sp}, common.Cst(width)}, Type: dst.Dtype, Span: sp}
		return append(out, store(dv, idx, red, sp))
	})...)
	var steps []int64
	for m := width / 2; m > 0; m /= 2 {
		steps = append(steps, m)
	}
	return &dispatch.Result{
		Body: &ir.Block{Stmts: body, Span: sp}, Threads: 32,
		Plan: []dispatch.PlanItem{
			plan("path", "laneid shard -> replica: warp_reduce"),
			plan("registers per lane", fmt.Sprint(n)),
			plan("lanes per result", fmt.Sprint(width)),
			plan("shuffle-xor masks", intList(steps)+" (full-warp mask 0xFFFFFFFF)"),
			plan("result", fmt.Sprintf("every lane of each group of %d", width)),
			plan("accum", "ignored by this path"),
		},
	}
}

// emitLocalView is TVM _emit_reduction_local_view.
func emitLocalView(c *dispatch.Call, r *redCall, op redOp, reduceDims, spatialDims []int) *dispatch.Result {
	sp := c.Span()
	dst, src := r.dst.Buf, r.src.Buf
	sl, dl := src.Layout.(*layout.TileLayout), dst.Layout.(*layout.TileLayout)
	sInfo, ok1 := getLocalRegion(sl, src.Shape, r.src.Mins, r.src.Exts)
	dInfo, ok2 := getLocalRegion(dl, dst.Shape, r.dst.Mins, r.dst.Exts)
	if !ok1 || !ok2 {
		dispatch.Raise("AssertionError", "")
	}
	var masks []int64
	if r.threadReduce {
		masks = shuffleMasks(analyzeLayoutDims(sl, src.Shape), reduceDims)
	}
	srcMap := localDimMap(sl, src.Shape)
	dstMap := localDimMap(dl, dst.Shape)
	var redExt []int64
	var redSt []ir.Expr
	for _, d := range reduceDims {
		if srcMap[d] >= 0 {
			redExt = append(redExt, sInfo.ext[srcMap[d]])
			redSt = append(redSt, sInfo.st[srcMap[d]])
		}
	}
	redTotal := prod(redExt)
	dstTotal := prod(dInfo.ext)
	srcIndex := func(dstIdx []ir.Expr, red ir.Expr) []ir.Expr {
		var ri []ir.Expr
		if len(redExt) > 0 {
			ri = indices(red, redSt, redExt)
		}
		var out []ir.Expr
		k := 0
		for d := range r.src.Exts {
			if srcMap[d] < 0 {
				continue
			}
			if slices.Contains(reduceDims, d) {
				out = append(out, ri[k])
				k++
				continue
			}
			if d >= len(dstMap) {
				dispatch.Raise("KeyError", "%d", d) // TVM's dst_dim_map[d]
			}
			if dstMap[d] < 0 {
				dispatch.Raise("TypeError", "list indices must be integers or slices, not NoneType")
			}
			out = append(out, dstIdx[dstMap[d]])
		}
		return out
	}
	sv := localView("src_local", src, sInfo.shape, sp)
	dv := localView("dst_local", dst, dInfo.shape, sp)
	inPlace := src == dst
	saveAccum := r.accum && r.threadReduce
	init := op.identity(src.Dtype, sp)
	// In place, src's view is never read (TVM declares it anyway; nvcc
	// warns about an unused pointer).
	body := []ir.Stmt{&ir.Decl{Buf: dv, Span: sp}}
	if !inPlace {
		body = []ir.Stmt{&ir.Decl{Buf: sv, Span: sp}, &ir.Decl{Buf: dv, Span: sp}}
	}
	var old *ir.Buffer
	if saveAccum {
		old = localBuf("old_val", []int64{1}, src.Dtype, sp)
		body = append(body, &ir.Alloc{Buf: old, Span: sp})
	}
	zero := []ir.Expr{common.Cst(0)}
	body = append(body, loop("spa", dstTotal, ir.Serial, sp, func(spa ir.Expr) []ir.Stmt {
		di := indices(spa, dInfo.st, dInfo.ext)
		var out []ir.Stmt
		if saveAccum {
			out = append(out, store(old, zero, load(dv, di, sp), sp))
		}
		if !inPlace {
			if !r.accum || saveAccum {
				out = append(out, store(dv, di, init, sp))
			}
			out = append(out, loop("red", redTotal, ir.Serial, sp, func(red ir.Expr) []ir.Stmt {
				return []ir.Stmt{store(dv, di, op.combine(load(dv, di, sp), load(sv, srcIndex(di, red), sp), sp), sp)}
			})...)
		}
		if r.threadReduce {
			mask := &ir.Var{Name: "mask", Type: ir.UInt32, Span: sp}
			out = append(out, &ir.Let{Var: mask, Value: &ir.Call{Op: ir.OpWarpActivemask, Type: ir.UInt32, Span: sp}, Span: sp})
			for _, m := range masks {
				v := load(dv, di, sp)
				sh := &ir.Call{Op: ir.OpWarpShuffleXor, Args: []ir.Expr{mask, v, common.Cst(m), common.Cst(32), common.Cst(32)},
					Type: src.Dtype, Span: sp}
				out = append(out, store(dv, di, op.combine(v, sh, sp), sp))
			}
		}
		if saveAccum {
			out = append(out, store(dv, di, op.combine(load(dv, di, sp), load(old, zero, sp), sp), sp))
		}
		return out
	})...)
	threads := int64(32)
	if c.Scope == "warpgroup" {
		threads = 128
	}
	pl := []dispatch.PlanItem{
		plan("path", "per-thread registers (view)"),
		plan("src registers per thread", fmt.Sprintf("%v of %v", sInfo.ext, sInfo.shape)),
		plan("outputs per thread", fmt.Sprint(dstTotal)),
		plan("serial per output", fmt.Sprint(redTotal)),
	}
	onThreads := len(shuffleMasks(analyzeLayoutDims(sl, src.Shape), reduceDims)) > 0
	switch {
	case !r.threadReduce && onThreads:
		pl = append(pl, plan("shuffle", "none (thread_reduce=False)"),
			plan("result", "per-thread partial results: the reduce dims also lie on threads"))
	case !r.threadReduce || len(masks) == 0:
		pl = append(pl, plan("shuffle", "none (the reduce dims lie in each thread's registers)"),
			plan("result", "complete in every thread"))
	default:
		pl = append(pl, plan("shuffle-xor masks", intList(masks)+" (activemask, width 32)"),
			plan("result", "every lane of a reduce group"))
	}
	switch {
	case inPlace:
		pl = append(pl, plan("in place", "src is dst: shuffle only"))
	case saveAccum:
		pl = append(pl, plan("accum", "old dst saved in old_val, folded in after the shuffles"))
	default:
		pl = append(pl, plan("init", initText(r.accum, op, src.Dtype)))
	}
	return &dispatch.Result{Body: &ir.Block{Stmts: body, Span: sp}, Threads: threads, Plan: pl}
}

// localVariants registers `local` for sum, max and min.
func localVariants() []dispatch.Variant {
	var out []dispatch.Variant
	for _, op := range []string{"sum", "max", "min"} {
		out = append(out, dispatch.Variant{
			Op: op, Name: "local", Target: "cuda", Priority: 10,
			When: []dispatch.Pred{
				{Name: "storage_scope", Check: storageScope("local")},
				{Name: "local_valid", Check: localValid},
			},
			Emit: emitLocal,
		})
	}
	return out
}
