package reduction

// reduction/shared: Tx.<scope>.sum / max / min on shared-memory buffers,
// variant `shared`, priority 10, predicates `storage_scope` (dst and src
// shared*) and `shared_valid`. Mirrors TVM backend/cuda/operator/
// tile_primitive/reduction/shared.py (0.25.0.post1; 0.26.0 is the same;
// 0.27.0.post1 fails on every call that passes the predicates, a
// reference bug: see RaiseNotWellFormedFrom).
//
// CTA, warpgroup and warp scope: the scope's threads (threadIdx.x, 128,
// 32) form groups of g = min(next_pow2(reduction_len), 32, threads) lanes;
// each group reduces one spatial position per step (threads/g positions a
// step): every lane folds the elements t·g + lane into a register
// (thread_data, identity first), log2(g) shuffle-xor steps of width g
// combine the group's lanes, and the group's lane 0 writes dst (combined
// with dst's old value when accum). A barrier of the scope ends the call
// (__syncthreads, bar.sync 8 128, __syncwarp).
//
// Thread scope: serial loops over spatial and reduction positions.
//
// Rejects (shared_valid): other scopes, a non-shared operand, a dtype
// mismatch, no threadIdx.x or a threadIdx.y/z launch binding, an axis out
// of range, dst's size not the product of src's spatial extents.

import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// sharedValid is TVM validate_reduction_shared.
func sharedValid(c *dispatch.Call) *dispatch.Decline {
	switch c.Scope {
	case "cta", "warpgroup", "warp", "thread":
	default:
		return c.Declinef(common.OpSpan(c), "unsupported exec_scope %s for shared reduction", c.Scope)
	}
	r := args(c)
	dst, src := r.dst.Buf, r.src.Buf
	if !(common.MatchScope(src.Scope, "shared*") && common.MatchScope(dst.Scope, "shared*")) {
		return c.Decline(c.Span(), "expected shared scope for both src and dst")
	}
	if src.Dtype != dst.Dtype {
		return c.Declinef(c.Span(), "dtype mismatch: src=%s dst=%s", src.Dtype, dst.Dtype)
	}
	if !c.LaunchTags["threadIdx.x"] {
		return c.Decline(common.OpSpan(c), "threadIdx.x not in launch_params")
	}
	if c.LaunchTags["threadIdx.y"] || c.LaunchTags["threadIdx.z"] {
		return c.Decline(common.OpSpan(c), "multi-dimensional thread binding not supported for shared reduction")
	}
	_, spatial, msg := analyzeAxes(len(r.src.Exts), r.axes)
	if msg != "" {
		return c.Decline(c.ArgSpan(2), msg)
	}
	want, got := prod(pick(r.src.Exts, spatial)), prod(r.dst.Exts)
	if want != got {
		return c.Declinef(c.ArgSpan(0), "dst size %d != expected spatial size %d", got, want)
	}
	return nil
}

// nextPow2 is TVM next_power_of_2.
func nextPow2(x int64) int64 {
	p := int64(1)
	for p < x {
		p <<= 1
	}
	return p
}

func log2(x int64) int {
	n := 0
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// emitShared is TVM reduction_shared_impl.
func emitShared(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	r := args(c)
	op := opOf(c)
	reduceDims, spatialDims := mustAxes(len(r.src.Exts), r.axes)
	if c.Scope == "cta" || c.Scope == "warpgroup" || c.Scope == "warp" || c.Scope == "thread" {
		// 0.27.0.post1: the implementation reads the caller's thread
		// variables (and, at thread scope, its shared buffers); the wheel
		// fails building it on every call (docs/variants-releases.md).
		common.RaiseNotWellFormedFrom(c, release.From(release.R027))
	}
	switch c.Scope {
	case "cta", "warpgroup", "warp":
		return emitSharedGroups(c, r, op, reduceDims, spatialDims), nil
	case "thread":
		return emitSharedThread(c, r, op, reduceDims, spatialDims), nil
	}
	return nil, c.Declinef(common.OpSpan(c), "unsupported exec_scope %s for reduction_shared_impl", c.Scope)
}

// emitSharedGroups is TVM _emit_reduction_shared_cta.
func emitSharedGroups(c *dispatch.Call, r *redCall, op redOp, reduceDims, spatialDims []int) *dispatch.Result {
	sp := c.Span()
	dst, src := r.dst.Buf, r.src.Buf
	dt := src.Dtype
	var threads int64
	switch c.Scope {
	case "cta":
		threads, _ = c.ThreadIdxX()
	case "warpgroup":
		threads = 128
	case "warp":
		threads = 32
	}
	spaLen := prod(pick(r.src.Exts, spatialDims))
	redLen := prod(pick(r.src.Exts, reduceDims))
	g := max(min(nextPow2(redLen), 32, threads), 1)
	nShuffles := log2(g)
	par := threads / g
	if par == 0 {
		dispatch.Raise("ZeroDivisionError", "integer division or modulo by zero")
	}

	var body []ir.Stmt
	var tid ir.Expr = &ir.ThreadIndex{Axis: "tx", Span: sp}
	if c.Scope != "cta" {
		v := &ir.Var{Name: "tid_in_scope", Type: ir.Int32, Span: sp}
		body = append(body, &ir.Let{Var: v, Value: ir.ModE(tid, common.Cst(threads)), Span: sp})
		tid = v
	}
	td := localBuf("thread_data", []int64{1}, dt, sp)
	body = append(body, &ir.Alloc{Buf: td, Span: sp})
	zero := []ir.Expr{common.Cst(0)}
	groupID := ir.DivE(tid, common.Cst(g))
	lane := ir.ModE(tid, common.Cst(g))
	steps, tsteps := ceilDiv(spaLen, par), ceilDiv(redLen, g)
	// The guards are always true when the positions tile the threads
	// exactly (TVM's simplifier drops them then).
	spaGuard := spaLen%par != 0 || threads%g != 0
	redGuard := redLen%g != 0
	body = append(body, loop("step", steps, ir.Serial, sp, func(step ir.Expr) []ir.Stmt {
		spa := ir.AddE(ir.MulE(step, common.Cst(par)), groupID)
		in := []ir.Stmt{store(td, zero, op.identity(dt, sp), sp)}
		in = append(in, loop("t", tsteps, ir.Serial, sp, func(t ir.Expr) []ir.Stmt {
			red := ir.AddE(ir.MulE(t, common.Cst(g)), lane)
			si := srcIndices(spa, red, spatialDims, reduceDims, r.src.Exts, r.src.Mins)
			s := store(td, zero, op.combine(load(td, zero, sp), load(src, si, sp), sp), sp)
			if redGuard {
				s = ifThen(&ir.Binary{Op: ir.LT, A: red, B: common.Cst(redLen), Span: sp}, []ir.Stmt{s}, sp)
			}
			return []ir.Stmt{s}
		})...)
		for i := range nShuffles {
			v := load(td, zero, sp)
			mask := &ir.Call{Op: ir.OpWarpActivemask, Type: ir.UInt32, Span: sp}
			sh := &ir.Call{Op: ir.OpWarpShuffleXor, Args: []ir.Expr{mask, v, common.Cst(int64(1) << i), common.Cst(g), common.Cst(32)},
				Type: dt, Span: sp}
			in = append(in, store(td, zero, op.combine(v, sh, sp), sp))
		}
		di := indices(spa, r.dst.Mins, r.dst.Exts)
		var val ir.Expr = load(td, zero, sp)
		if r.accum {
			val = op.combine(load(dst, di, sp), val, sp)
		}
		in = append(in, ifThen(&ir.Binary{Op: ir.EQ, A: lane, B: common.Cst(0), Span: sp},
			[]ir.Stmt{store(dst, di, val, sp)}, sp))
		if spaGuard {
			return []ir.Stmt{ifThen(&ir.Binary{Op: ir.LT, A: spa, B: common.Cst(spaLen), Span: sp}, in, sp)}
		}
		return in
	})...)
	var sync ir.Stmt
	switch c.Scope {
	case "cta":
		sync = &ir.Evaluate{X: &ir.Call{Op: ir.OpCTASync, Span: sp}, Span: sp}
	case "warpgroup":
		sync = &ir.Evaluate{X: &ir.Call{Op: ir.OpWarpgroupSync, Args: []ir.Expr{common.Cst(8)}, Span: sp}, Span: sp}
	case "warp":
		sync = &ir.Evaluate{X: &ir.Call{Op: ir.OpWarpSync, Span: sp}, Span: sp}
	}
	body = append(body, sync)

	var masks []int64
	for i := range nShuffles {
		masks = append(masks, int64(1)<<i)
	}
	shuffle := "none (one lane per output)"
	if nShuffles > 0 {
		shuffle = fmt.Sprintf("%s (activemask, width %d)", intList(masks), g)
	}
	syncText := map[string]string{"cta": "__syncthreads()", "warpgroup": "bar.sync 8, 128 (warpgroup_sync(8))", "warp": "__syncwarp()"}[c.Scope]
	accum := fmt.Sprintf("dst = %s (lane 0 of each group)", "thread_data")
	if r.accum {
		accum = fmt.Sprintf("dst = %s(dst, thread_data) (lane 0 of each group)", op)
	}
	return &dispatch.Result{
		Body: &ir.Block{Stmts: body, Span: sp}, Threads: threads, Outer: steps,
		Plan: []dispatch.PlanItem{
			plan("threads", fmt.Sprint(threads)),
			plan("spatial × reduction", fmt.Sprintf("%d × %d", spaLen, redLen)),
			plan("lanes per output (group)", fmt.Sprint(g)),
			plan("outputs per step", fmt.Sprintf("%d (%d %s)", par, steps, map[bool]string{true: "step", false: "steps"}[steps == 1])),
			plan("serial per lane", fmt.Sprintf("%d (elements t·%d + lane)", tsteps, g)),
			plan("shuffle-xor masks", shuffle),
			plan("result", accum),
			plan("barrier", syncText),
		},
	}
}

// emitSharedThread is TVM _emit_reduction_shared_thread.
func emitSharedThread(c *dispatch.Call, r *redCall, op redOp, reduceDims, spatialDims []int) *dispatch.Result {
	sp := c.Span()
	src := r.src.Buf
	body, spaLen, redLen := serialReduce(r, op, reduceDims, spatialDims, "spa_fused", "red_fused", sp)
	return &dispatch.Result{
		Body: &ir.Block{Stmts: body, Span: sp}, Threads: 1,
		Plan: []dispatch.PlanItem{
			plan("path", "one thread, serial loops"),
			plan("outputs", fmt.Sprint(spaLen)),
			plan("serial per output", fmt.Sprint(redLen)),
			plan("init", initText(r.accum, op, src.Dtype)),
		},
	}
}

// sharedVariants registers `shared` for sum, max and min.
func sharedVariants() []dispatch.Variant {
	var out []dispatch.Variant
	for _, op := range []string{"sum", "max", "min"} {
		out = append(out, dispatch.Variant{
			Op: op, Name: "shared", Target: "cuda", Priority: 10,
			When: []dispatch.Pred{
				{Name: "storage_scope", Check: storageScope("shared*")},
				{Name: "shared_valid", Check: sharedValid},
			},
			Emit: emitShared,
		})
	}
	return out
}
