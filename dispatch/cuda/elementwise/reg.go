package elementwise

// elementwise/reg: an elementwise op whose operands all live in registers
// (scope "local"), variant `reg`, priority 10, predicate `{op}_reg` (spec
// §4.4 "reg predicate" and "reg algorithm").
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/elementwise/
// reg.py, _common.py (align_operands_to_anchor, _broadcast_lift) and
// layout_utils.py (get_sublayout_from_region, layout_signature) at PRE
// abe2526b3e (SEED is identical). The partition is induced by the dst
// (the anchor): every operand's layout is sliced to its region, broadcast
// operands are lifted with stride-0 iters, and each is grouped and permuted
// to the anchor's iters (thread iters first, then stride descending). The
// thread iters must then agree; dropping them leaves one per-thread memory
// layout per operand, and every thread loops over its per_thread_total
// registers through 1-D local views (decl_buffer over the operand's data
// with that memory layout). vec > 1 only through a packed impl (f32x2 on
// sm_100+, cast_vec2) whose width every operand can carve off a contiguous
// tail; ops without one are never vectorized in registers.
//
// Rejects (predicate {op}_reg, first failure): the smem head (non-cuda,
// "unsupported scope {k}", narrowed scopes, parse failures), an operand
// outside local ("operand scope {s} != local") or without a layout, bad
// scale/bias dtypes, a swizzled or ComposeLayout anchor, a warp/warpgroup/
// cta call whose anchor is not scope-level (its thread iters, on laneid/
// tid_in_wg/tx, must tile all the scope's threads: "... — pass the
// {scope}-level tensor, not its `.local()` (per-thread) view"), shapes
// that do not broadcast to dst, and replica iters that differ between
// operands. The emitter declines when the aligned thread parts differ
// ("thread part mismatch between anchor and operand after alignment").
// tilels also needs constant region starts to slice layouts.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// ewiseRegPred is TVM is_reg_ewise(spec).
func ewiseRegPred(spec *ewiseOpSpec) func(*dispatch.Call) *dispatch.Decline {
	return func(c *dispatch.Call) *dispatch.Decline {
		p, d := ewiseHead(c, spec)
		if d != nil {
			return d
		}
		ops := p.operands()
		for _, o := range ops {
			span := c.ArgSpan(o.Arg)
			if o.R.Buf.Scope != "local" {
				return c.Declinef(span, "operand scope %s != local", o.R.Buf.Scope)
			}
			if o.R.Buf.Layout == nil {
				return c.Declinef(span, "operand %s has no layout", dispatch.ExprText(o.R))
			}
		}
		if spec.CheckExtras != nil {
			if why := spec.CheckExtras(p.Extras, p.computeDtype()); why != "" {
				return ewiseExtrasDecline(c, why)
			}
		}
		anchor := ops[0]
		if d := ewiseAnchorLayout(c, anchor); d != nil {
			return d
		}
		if d := ewiseScopeLevelAnchor(c, anchor); d != nil {
			return d
		}
		if d := ewiseBroadcastCheck(c, p); d != nil {
			return d
		}
		return ewiseReplicasAgree(c, ops)
	}
}

// ewiseAnchorLayout is TVM _validate_anchor_layout.
func ewiseAnchorLayout(c *dispatch.Call, o ewiseOperand) *dispatch.Decline {
	if cl, ok := o.R.Buf.Layout.(*layout.ComposeLayout); ok {
		if layout.IsTrivial(cl.Tile) {
			return c.Declinef(c.ArgSpan(o.Arg), "anchor layout is swizzle")
		}
		return c.Declinef(c.ArgSpan(o.Arg), "anchor layout is ComposeLayout, not TileLayout")
	}
	return nil
}

// ewiseSublayout is TVM get_sublayout_from_region: the layout sliced to
// the region, or the whole layout when the slice does not exist. ok is
// false for symbolic region starts (a tilels limitation).
func ewiseSublayout(c *dispatch.Call, o ewiseOperand) (layout.Layout, *dispatch.Decline) {
	l, d := ewiseSlice(c, o)
	if d != nil {
		return nil, d
	}
	if l == nil {
		return o.R.Buf.Layout, nil
	}
	return l, nil
}

// ewiseSlice is layout.slice(shape, region); nil when not representable.
// A grouping failure is an exception in TVM.
func ewiseSlice(c *dispatch.Call, o ewiseOperand) (layout.Layout, *dispatch.Decline) {
	shape, d := ewiseShape(c, o)
	if d != nil {
		return nil, d
	}
	bounds, ok := ewiseBounds(o.R, shape)
	if !ok {
		// A symbolic start is sliced at 0; emitEwiseReg adds its offset
		// (ewiseSymOffset) to the addresses, as for copies.
		g, gok := common.ReadRegion(c, o.Arg)
		if !gok {
			return nil, ewiseStaticDecline(c, o)
		}
		if _, d := ewiseSymOffset(c, o); d != nil {
			return nil, d
		}
		bounds = g.Bounds
	}
	l, err := layout.Slice(o.R.Buf.Layout, o.R.Buf.Shape, bounds)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	return l, nil
}

// ewiseSymOffset is the memory-axis offset of o's symbolic region start
// (nil when the start is constant). Starts that tilels cannot slice
// (symOffsets) or that move along a thread axis decline.
func ewiseSymOffset(c *dispatch.Call, o ewiseOperand) (ir.Expr, *dispatch.Decline) {
	g, ok := common.ReadRegion(c, o.Arg)
	if !ok || g.Static {
		return nil, nil
	}
	sym, ok := common.SymOffsets(g)
	if !ok {
		return nil, c.Declinef(c.ArgSpan(o.Arg), "non-constant region start %s: tilels cannot slice this layout at a symbolic offset", dispatch.ExprText(o.R))
	}
	for a, e := range sym {
		if v, isConst := ir.ConstInt(e); a.IsThread() && (!isConst || v != 0) {
			return nil, c.Declinef(c.ArgSpan(o.Arg), "non-constant region start %s moves along thread axis %s: tilels cannot slice it", dispatch.ExprText(o.R), common.PyRepr(a.Name))
		}
	}
	return sym[layout.M], nil
}

// ewiseStrList prints a Python list of strings: ['laneid', 'warpid'].
func ewiseStrList(xs []string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = common.PyRepr(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ewiseScopeLevelAnchor is TVM _validate_scope_level_anchor: at warp,
// warpgroup and cta scope the anchor must be the scope-level tensor, whose
// canonical thread iters are all on the scope's thread axis and, sorted by
// stride, tile 1, e0, e0·e1, … up to the scope's thread count.
func ewiseScopeLevelAnchor(c *dispatch.Call, o ewiseOperand) *dispatch.Decline {
	scope := c.Scope
	axis, ok := common.TidAxisForScope[scope]
	if scope == "thread" || !ok {
		return nil
	}
	want := c.ThreadCnt()
	sl, d := ewiseSublayout(c, o)
	if d != nil {
		return d
	}
	span := c.ArgSpan(o.Arg)
	t, ok := layout.Canonicalize(sl, true).(*layout.TileLayout)
	if !ok {
		return c.Declinef(span, "%s-scope op operand layout is not a TileLayout after slicing", scope)
	}
	var threads []layout.Iter
	for _, it := range t.Shard {
		if it.Axis.IsThread() {
			threads = append(threads, it)
		}
	}
	if len(threads) == 0 {
		return c.Declinef(span, "%s-scope op needs a %s-level operand whose layout carries thread axes "+
			"(%s composing to %d:1); got a thread-local view with no thread axes — pass the %s-level tensor, "+
			"not its `.local()` (per-thread) view", scope, scope, axis, want, scope)
	}
	var bad []string
	for _, it := range threads {
		if it.Axis.Name != axis && !slices.Contains(bad, it.Axis.Name) {
			bad = append(bad, it.Axis.Name)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return c.Declinef(span, "%s-scope op operand carries thread axes %s; after canonicalization a %s-level layout must use only %s",
			scope, ewiseStrList(bad), scope, common.PyRepr(axis))
	}
	slices.SortStableFunc(threads, func(a, b layout.Iter) int { return ewiseCmpAsc(a.Stride, b.Stride) })
	running := int64(1)
	for _, it := range threads {
		if it.Stride != running {
			return c.Declinef(span, "%s-scope op operand thread axes do not tile a complete %d:1 (sorted by stride: expected %d, got %d)",
				scope, want, running, it.Stride)
		}
		running *= it.Extent
	}
	if running != want {
		return c.Declinef(span, "%s-scope op operand thread axes span %d threads, not the full %d of the %s", scope, running, want, scope)
	}
	return nil
}

func ewiseCmpAsc(a, b int64) int { return -common.CmpDesc(a, b) }

// ewiseReplicasAgree is TVM _check_layout_operands_agree: every operand's
// sliced canonical layout has the same replica iters.
func ewiseReplicasAgree(c *dispatch.Call, ops []ewiseOperand) *dispatch.Decline {
	if len(ops) < 2 {
		return nil
	}
	var first []layout.Iter
	for i, o := range ops {
		sl, d := ewiseSublayout(c, o)
		if d != nil {
			return d
		}
		t, ok := layout.Canonicalize(sl, true).(*layout.TileLayout)
		span := c.ArgSpan(o.Arg)
		if !ok || len(t.Shard) == 0 {
			return c.Declinef(span, "layout has no signature (not a TileLayout?)")
		}
		if i == 0 {
			first = t.Replica
			continue
		}
		if len(t.Replica) != len(first) {
			return c.Declinef(span, "replica sig mismatch (different number of replica iters)")
		}
		for k, it := range t.Replica {
			switch f := first[k]; {
			case it.Axis.Name != f.Axis.Name:
				return c.Declinef(span, "replica sig mismatch (axis key)")
			case it.Extent != f.Extent:
				return c.Declinef(span, "replica sig mismatch (extent)")
			case it.Stride != f.Stride:
				return c.Declinef(span, "replica sig mismatch (stride)")
			}
		}
	}
	return nil
}

// ewisePermR is TVM _compute_perm_r: thread iters first, then stride
// descending (stable).
func ewisePermR(l *layout.TileLayout) []int {
	perm := make([]int, len(l.Shard))
	for i := range perm {
		perm[i] = i
	}
	key := func(i int) int {
		if l.Shard[i].Axis.IsThread() {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		if ka, kb := key(a), key(b); ka != kb {
			return ka - kb
		}
		return common.CmpDesc(l.Shard[a].Stride, l.Shard[b].Stride)
	})
	return perm
}

// ewiseSliceCanon is layout.slice(...).canonicalize(); TVM raises on the
// None of an unrepresentable slice.
func ewiseSliceCanon(c *dispatch.Call, o ewiseOperand) (layout.Layout, *dispatch.Decline) {
	l, d := ewiseSlice(c, o)
	if d != nil {
		return nil, d
	}
	if l == nil {
		dispatch.Raise("AttributeError", "'NoneType' object has no attribute 'canonicalize'")
	}
	return layout.Canonicalize(l, true), nil
}

// ewiseAligned is the result of align_operands_to_anchor: the anchor's
// permuted layout and each other operand's layout grouped by the anchor's
// iters and permuted the same way (index-aligned with plan.operands()).
type ewiseAligned struct {
	anchor *layout.TileLayout
	ops    []*layout.TileLayout // ops[0] == anchor
}

// ewiseAlign is TVM align_operands_to_anchor (with
// _align_layouts_no_post_canon: no canonicalize after the permutation, so
// the anchor iters and the operand groups stay one to one).
func ewiseAlign(c *dispatch.Call, ops []ewiseOperand) (*ewiseAligned, *dispatch.Decline) {
	rl, d := ewiseSliceCanon(c, ops[0])
	if d != nil {
		return nil, d
	}
	r := common.MustTile(rl)
	perm := ewisePermR(r)
	al := &ewiseAligned{anchor: layout.PermuteDims(r, perm)}
	al.ops = append(al.ops, al.anchor)
	rShape, d := ewiseShape(c, ops[0])
	if d != nil {
		return nil, d
	}
	for _, o := range ops[1:] {
		sl, d := ewiseSliceCanon(c, o)
		if d != nil {
			return nil, d
		}
		sShape, d := ewiseShape(c, o)
		if d != nil {
			return nil, d
		}
		s := layout.StripSwizzleToTile(sl, sShape)
		if !slices.Equal(sShape, rShape) {
			s = ewiseBroadcastLift(s, sShape, rShape)
		}
		g, seps, err := layout.Group(s, r.Extents())
		if err != nil {
			dispatch.Raise("TVMError", "%v", err)
		}
		al.ops = append(al.ops, layout.PermuteByGroups(g, seps, perm))
	}
	return al, nil
}

// ewiseThreadPart is the (axis, extent, stride) list of the thread iters of the
// canonical form of l.
func ewiseThreadPart(l *layout.TileLayout) []layout.Iter {
	var out []layout.Iter
	for _, it := range common.Canon(l).Shard {
		if it.Axis.IsThread() {
			out = append(out, it)
		}
	}
	return out
}

// ewiseStripThread drops the thread iters of the shard (TVM _strip_thread).
func ewiseStripThread(l *layout.TileLayout) *layout.TileLayout {
	var mem []layout.Iter
	for _, it := range l.Shard {
		if !it.Axis.IsThread() {
			mem = append(mem, it)
		}
	}
	return layout.NewTile(mem, l.Replica, l.Offset)
}

// ewisePickVecAndCarve is TVM _pick_vec_and_carve: the widest packed impl
// whose width every operand's memory layout can carve off a contiguous
// tail, and that applies; else vec 1 with the layouts unchanged.
func ewisePickVecAndCarve(spec *ewiseOpSpec, c *dispatch.Call, p *ewisePlan, mem []*layout.TileLayout) (int64, *ewiseVecImpl, []*layout.TileLayout) {
	impls := make([]*ewiseVecImpl, len(spec.VecImpls))
	for i := range spec.VecImpls {
		impls[i] = &spec.VecImpls[i]
	}
	slices.SortStableFunc(impls, func(a, b *ewiseVecImpl) int { return common.CmpDesc(a.VecLen, b.VecLen) })
	for _, impl := range impls {
		carved := make([]*layout.TileLayout, len(mem))
		ok := true
		for i, l := range mem {
			its, cok := common.CarveTail(l.Shard, impl.VecLen)
			if !cok {
				ok = false
				break
			}
			carved[i] = layout.NewTile(its, l.Replica, l.Offset)
			if !common.VerifyTail(carved[i], impl.VecLen) {
				ok = false
				break
			}
		}
		if ok && impl.Applies(c, p) == "" {
			return impl.VecLen, impl, carved
		}
	}
	return 1, nil, mem
}

// emitEwiseReg is TVM emit_reg (the induced path).
func emitEwiseReg(spec *ewiseOpSpec) func(*dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
		p, d := spec.Parse(c)
		if d != nil {
			return nil, d
		}
		ops := p.operands()
		al, d := ewiseAlign(c, ops)
		if d != nil {
			return nil, d
		}
		want := ewiseThreadPart(al.anchor)
		for _, l := range al.ops[1:] {
			if !slices.Equal(ewiseThreadPart(l), want) {
				return nil, c.Declinef(c.Span(), "thread part mismatch between anchor and operand after alignment")
			}
		}
		mem := make([]*layout.TileLayout, len(al.ops))
		for i, l := range al.ops {
			mem[i] = ewiseStripThread(l)
		}
		vec, impl, carved := ewisePickVecAndCarve(spec, c, p, mem)
		perThread := ewiseProd(carved[0].Extents())
		outer := perThread / vec

		sp := c.Span()
		// Symbolic region starts (a loop variable in a slice): the layouts
		// were sliced at 0, so every operand is then addressed explicitly,
		// its carved layout applied to the per-thread index plus the
		// start's offset, through a view over the whole register storage.
		syms := make([]ir.Expr, len(ops))
		anySym := false
		for i, o := range ops {
			syms[i], _ = ewiseSymOffset(c, o)
			anySym = anySym || syms[i] != nil
		}
		// index is operand i's index of lane k of step f (the view's
		// logical index f*vec+k, or with a symbolic start the physical
		// offset: the carved layout applied to (f, k) over [outer, vec]).
		index := func(i int, f ir.Expr, k int64) []ir.Expr {
			if !anySym {
				if vec == 1 {
					return []ir.Expr{f}
				}
				return []ir.Expr{ir.AddE(ir.MulE(f, common.Cst(vec)), common.Cst(k))}
			}
			off := common.ApplyExpr(carved[i], []ir.Expr{f, common.Cst(k)}, []int64{outer, vec})
			if syms[i] != nil {
				off = ir.AddE(off, syms[i])
			}
			return []ir.Expr{off}
		}
		var body []ir.Stmt
		// One view per distinct region: equal regions of one buffer align
		// to equal layouts (TVM declares one view per BufferRegion object).
		views := map[string]*ir.Buffer{}
		viewOf := make([]*ir.Buffer, len(ops))
		for i, o := range ops {
			key := fmt.Sprintf("%p %s", o.R.Buf, dispatch.ExprText(o.R))
			if v, ok := views[key]; ok {
				viewOf[i] = v
				continue
			}
			b := o.R.Buf
			v := &ir.Buffer{Name: b.Name + "_local", Data: b.Data, Shape: []int64{perThread}, Dtype: b.Dtype,
				Scope: "local", Layout: carved[i], Base: b, Kind: ir.DeclBuffer, Span: sp}
			if anySym {
				span := layout.SpanOf(b.Layout, layout.M)
				v.Shape, v.Layout = []int64{span}, layout.RowMajor(span)
			}
			views[key], viewOf[i] = v, v
			body = append(body, &ir.Decl{Buf: v, Span: sp})
		}
		// srcView[i] is the view of src i (nil for a scalar), srcOp[i] its
		// operand index.
		srcView := make([]*ir.Buffer, len(p.Srcs))
		srcOp := make([]int, len(p.Srcs))
		k := 1
		for i, s := range p.Srcs {
			if s.Region != nil {
				srcView[i], srcOp[i] = viewOf[k], k
				k++
			}
		}
		dst, dt := viewOf[0], p.Dst.Buf.Dtype
		body = append(body, common.SerialLoop("f", outer, sp, func(f ir.Expr) []ir.Stmt {
			if impl != nil {
				lanesOf := func(op int) [][]ir.Expr {
					lanes := make([][]ir.Expr, vec)
					for k := range vec {
						lanes[k] = index(op, f, k)
					}
					return lanes
				}
				args := make([]ewiseLaneArg, len(p.Srcs))
				for i, s := range p.Srcs {
					if srcView[i] == nil {
						args[i] = ewiseLaneArg{Scalar: s.Scalar}
					} else {
						args[i] = ewiseLaneArg{Buf: srcView[i], Lanes: lanesOf(srcOp[i])}
					}
				}
				return []ir.Stmt{ewiseEmit(c, impl, dst, lanesOf(0), args, p.Extras, sp)}
			}
			vals := make([]ir.Expr, len(p.Srcs))
			for i, s := range p.Srcs {
				if srcView[i] == nil {
					vals[i] = s.Scalar
				} else {
					vals[i] = &ir.Load{Buf: srcView[i], Indices: index(srcOp[i], f, 0), Span: sp}
				}
			}
			val := ewiseCast(spec.Compute(vals, p.Extras, dt, sp), dt, sp)
			return []ir.Stmt{&ir.Store{Buf: dst, Indices: index(0, f, 0), Value: val, Span: sp}}
		})...)

		part := layout.NewTile(append(ewiseThreadItersRaw(al.anchor), carved[0].Shard...), carved[0].Replica, carved[0].Offset)
		res := &dispatch.Result{
			Body: &ir.Block{Stmts: body, Span: sp},
			Vec:  vec, VecBits: vec * int64(ewiseMaxBits(p)), Outer: outer, Threads: c.ThreadCnt(),
			Partition: part.String(),
		}
		if impl != nil {
			res.Notes = append(res.Notes, "packed "+impl.Name)
		}
		res.Notes = append(res.Notes, fmt.Sprintf("%d registers per thread", perThread))
		return res, nil
	}
}

// ewiseThreadItersRaw is the thread iters of l as they are (not canonicalized).
func ewiseThreadItersRaw(l *layout.TileLayout) []layout.Iter {
	var out []layout.Iter
	for _, it := range l.Shard {
		if it.Axis.IsThread() {
			out = append(out, it)
		}
	}
	return out
}
