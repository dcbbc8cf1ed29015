package copyasync

// copy_async/tma_auto and copy_async/tma_explicit: the TMA copies of 0.26
// and later, which replaced 0.25's single `tma` variant (priority 10 each,
// predicates validate_tma_copy_op and single_thread). tma_auto (this file)
// derives the largest hardware-legal box from the shared-memory iteration
// order; tma_explicit (tma_explicit.go) maps the user's global tensor,
// layout and region to one TensorMap and one instruction. Both build a
// tmaSpec judged by the named rules of tma_rules.go and are emitted by
// tma_issue.go.
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy_async/tma.py at
// 0.26.0 and 0.27.0.post1 (the planners are identical there; the emitted
// TIRx differs, see tma_issue.go): _validate_tma_copy_op,
// _COMMON_PREDICATES, _build_auto_plan, _smem_iter_order, _build_auto_gt,
// _auto_spec_for_prefix, _validate_auto_shared_mapping,
// _canonicalize_auto_plan, _promote_auto_once, _repair_auto_candidate.
//
// tma_auto declines (TVM fail()) with stage-named texts: `tma_auto
// stage=<stage>: <detail>; use dispatch="tma_explicit" when the mapping or
// hardware legality is only known at runtime`, the stages being dtype,
// shared-swizzle, shared-layout, shared-slice, group-shared, shared-chain,
// global-slice, group-global, copy-group, coordinate, global-shape,
// coordinate-only-dim, descriptor-order, descriptor-stride, issue-axis,
// byte-equivalence, global-base, shared-pointer, issue-coverage and
// prefix-search (the validation rules that failed at the last prefix).
// tilels-specific declines: a non-constant region extent, a symbolic start
// in a dimension whose slice structure depends on it, and a global view at
// a device-dependent offset.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var tmaCommonPreds = []dispatch.Pred{
	{Name: "validate_tma_copy_op", Check: tmaValidTMACopyOp},
	{Name: "single_thread", Check: tmaSingleThread},
}

var TMAAuto = dispatch.Variant{
	Op: "copy_async", Name: "tma_auto", Target: "cuda", Priority: 10, Releases: release.From(release.R026),
	Renamed: []string{"tma"}, // 0.25\'s name
	When:    tmaCommonPreds,
	Emit:    emitTMAAuto,
}

// tmaValidTMACopyOp is _validate_tma_copy_op: both buffers have layouts and
// the copy is global -> shared* or shared* -> global.
func tmaValidTMACopyOp(c *dispatch.Call) *dispatch.Decline {
	src, dst := c.Src(), c.Dst()
	if src == nil || dst == nil || !common.HasLayout(src.Buf) || !common.HasLayout(dst.Buf) {
		return c.Decline(c.Span(), "not a global<->shared TMA copy")
	}
	ss, ds := src.Buf.Scope, dst.Buf.Scope
	if ss == "global" && strings.HasPrefix(ds, "shared") || strings.HasPrefix(ss, "shared") && ds == "global" {
		return nil
	}
	return c.Decline(c.Span(), "not a global<->shared TMA copy")
}

// tmaIssueCoord is TVM IssueCoord: one mixed-radix digit of an issue axis
// added to descriptor dimension dim.
type tmaIssueCoord struct {
	dim              int
	divisor, modulus int64
}

// tmaIssueAxis is TVM AutoIssueAxis: one unboxed shared iterator lowered
// as an issue loop.
type tmaIssueAxis struct {
	extent, smemStride int64
	coords             []tmaIssueCoord
}

// tmaSpecPlan is TVM TMAPlan: a validated spec plus tma_auto's issue axes
// (issue axis 0 is the outermost digit of the flat issue index).
type tmaSpecPlan struct {
	spec *tmaSpec
	axes []tmaIssueAxis
	// prefix of chain shared iterators the box holds (tma_auto; 0 for
	// tma_explicit).
	prefix, chain int
}

func (p *tmaSpecPlan) issueExtent() int64 {
	n := int64(1)
	for _, a := range p.axes {
		n *= a.extent
	}
	return n
}

// tmaGt is TVM _Gt: one global-layout iterator after the two grouping
// steps. smemIdx is -1 for a coordinate-only (unit) iterator.
type tmaGt struct {
	extent, stride int64
	smemIdx        int
	copyDim        int
	globalDim      int64
	coord          ir.Expr
}

// tmaAutoInput is what the auto planner reads from the call.
type tmaAutoInput struct {
	dir  string
	s, g common.Region
	rt   *tmaRuntime
	arch string
	// rtExt is the runtime extent of g's buffer, which g.Shape carries as
	// tmaRuntimeUnit (tma_runtime_dim.go); nil when static.
	rtExt ir.Expr
}

func emitTMAAuto(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	in, d := tmaReadOperands(c)
	if d != nil {
		return nil, d
	}
	s, g := in.s, in.g
	if s.Buf.Dtype != g.Buf.Dtype {
		return nil, c.Decline(c.Span(), tmaAutoFail("dtype", fmt.Sprintf("shared dtype=%s and global dtype=%s differ", s.Buf.Dtype, g.Buf.Dtype)).msg)
	}
	rt, e := tmaRuntimeConfig(c, in.dir, false)
	if e != nil {
		return nil, c.Decline(c.Span(), e.msg)
	}
	if _, ok := c.Config("gather4"); ok {
		return nil, c.Decline(c.Span(), `gather4 and src_selector are only supported by dispatch="tma_explicit"`)
	}
	if _, ok := c.Config("src_selector"); ok {
		return nil, c.Decline(c.Span(), `gather4 and src_selector are only supported by dispatch="tma_explicit"`)
	}
	in.rt = rt
	plan, e := tmaBuildAutoPlan(in)
	if e != nil {
		return nil, c.Decline(c.Span(), e.msg)
	}
	return tmaEmitPlan(c, in, plan, nil)
}

// tmaReadOperands reads the direction and the two regions, with tilels'
// own limits (constant extents, static global views, sliceable symbolic
// shared starts).
func tmaReadOperands(c *dispatch.Call) (tmaAutoInput, *dispatch.Decline) {
	src, dst := c.Src(), c.Dst()
	ss, ds := src.Buf.Scope, dst.Buf.Scope
	in := tmaAutoInput{arch: c.Target.Arch}
	gi, si := 1, 0
	switch {
	case ss == "global" && strings.HasPrefix(ds, "shared"):
		in.dir = "g2s"
	case strings.HasPrefix(ss, "shared") && ds == "global":
		in.dir, gi, si = "s2g", 0, 1
	default:
		return in, c.Declinef(c.Span(), "TMA requires global<->shared operands, got src=%s, dst=%s", ss, ds)
	}
	for _, i := range []int{gi, si} {
		r, _ := c.Region(i)
		for _, e := range r.Extent {
			if _, ok := ir.ConstInt(e); !ok {
				return in, c.Declinef(c.ArgSpan(i), "non-constant region extent %s: tilels plans TMA copies with constant extents", tmaExprText(e))
			}
		}
	}
	gr, _ := c.Region(gi)
	for b := gr.Buf; b != nil; b = b.Base {
		if b.ElemOffsetExpr != nil {
			return in, c.Declinef(c.ArgSpan(gi), "global view %s at the device-dependent element offset %s: tilels builds tensor maps at static offsets", b.Name, tmaExprText(b.ElemOffsetExpr))
		}
	}
	if gr.Buf.Layout == nil {
		// a runtime dimension (tma_runtime_dim.go): the default layout
	} else if t := tmaSmemTile(gr.Buf.Layout, gr.Buf.Shape); t != nil && t.Offset[layout.M] != 0 {
		// TVM adds the layout's memory offset to the descriptor's base;
		// tilels' descriptors start at the view's element offset.
		return in, c.Declinef(c.ArgSpan(gi), "global layout with memory offset %d: tilels encodes tensor maps at the view's element offset only", t.Offset[layout.M])
	}
	in.g, _ = common.ConstRegion(c, gi)
	in.s, _ = common.ConstRegion(c, si)
	in.g, in.s = tmaRegionLets(in.g, c.Lets), tmaRegionLets(in.s, c.Lets)
	if gr.Buf.RuntimeDim() >= 0 {
		var why string
		if in.g, in.rtExt, why = tmaRuntimeRegion(in.g); why != "" {
			return in, c.Declinef(c.ArgSpan(gi), "not modelled: %s", why)
		}
	}
	if d := tmaSymbolicSmemStart(c, in.s); d != nil {
		return in, d
	}
	return in, nil
}

// tmaBuildAutoPlan is TVM _build_auto_plan after the runtime config.
func tmaBuildAutoPlan(in tmaAutoInput) (*tmaSpecPlan, *tmaStageError) {
	s, g := in.s, in.g
	swizzle, err := layout.SwizzleModeOf(s.Lay)
	if err != nil {
		return nil, tmaAutoFail("shared-swizzle", err.Error())
	}
	tile := tmaSmemTile(s.Lay, s.Buf.Shape)
	if f := tmaPlainMemory(tile, "shared"); f != nil {
		return nil, tmaAutoFail("shared-slice", f.msg) // _slice_layout's ValueError, caught
	}
	sl, err := layout.Slice(tile, s.Buf.Shape, s.Bounds)
	if err != nil || sl == nil {
		return nil, tmaAutoFail("shared-slice", fmt.Sprintf("shared layout cannot be sliced at start=%s, extent=%s", tmaExprList(s.Mins), tmaIntList(s.Exts)))
	}
	sliced := sl.(*layout.TileLayout)
	if f := tmaPlainMemory(sliced, "sliced shared"); f != nil {
		return nil, tmaAutoFail("shared-slice", f.msg)
	}
	// The layout offset of the slice (its physical base plus the region's
	// start) is the shared pointer's element offset.
	smemBase := tmaSimplify(common.ApplyExpr(tile, s.Mins, s.Buf.Shape))
	canon := layout.CanonicalTile(layout.NewTile(sliced.Shard, sliced.Replica, nil))
	if f := tmaPlainMemory(canon, "canonical sliced shared"); f != nil {
		dispatch.Raise("ValueError", "%s", f.msg)
	}
	canonShape := make([]int64, len(canon.Shard))
	for i, it := range canon.Shard {
		canonShape[i] = it.Extent
	}
	refined, _, err := layout.GroupMany(canon, [][]int64{canonShape, g.Exts})
	if err != nil {
		return nil, tmaAutoFail("group-shared", fmt.Sprintf("cannot refine canonical shared shape=%s with copy shape=%s: %v", tmaPyIntTuple(canonShape), tmaPyIntTuple(g.Exts), err))
	}
	order, e := tmaSmemIterOrder(refined)
	if e != nil {
		return nil, e
	}
	gts, e := tmaBuildAutoGt(g, refined)
	if e != nil {
		return nil, e
	}
	desc, e := tmaDTypeContract(g.Buf.Dtype, in.rt.tmaDType)
	if e != nil {
		return nil, e
	}

	var best *tmaSpecPlan
	var lastFailures []tmaFinding
	for prefix := 1; prefix <= len(order); prefix++ {
		raw, e := tmaAutoSpecForPrefix(in, refined, order, gts, prefix, swizzle, desc, smemBase)
		if e != nil {
			return nil, e
		}
		if e := tmaValidateAutoSharedMapping(raw, refined, swizzle, s.Buf); e != nil {
			return nil, e
		}
		repaired, failures := tmaRepairAutoCandidate(raw)
		if repaired == nil {
			lastFailures = failures
			if best != nil {
				break
			}
			continue
		}
		best = repaired
		best.prefix, best.chain = prefix, len(order)
	}
	if best == nil {
		if len(lastFailures) > 0 {
			return nil, tmaRaiseValidation("prefix-search", lastFailures, true)
		}
		return nil, tmaAutoFail("prefix-search", "no legal shared-memory prefix")
	}
	return best, nil
}

// tmaPlainMemory is TVM _assert_plain_memory_layout's check; its callers
// turn the failure into TVM's ValueError, or a stage failure where TVM
// catches it (shared-slice).
func tmaPlainMemory(l *layout.TileLayout, label string) *tmaStageError {
	if len(l.Replica) > 0 {
		return tmaPlainFail("%s layout contains replica iterators", label)
	}
	for _, it := range l.Shard {
		if !it.Axis.IsMemory() {
			return tmaPlainFail("%s layout must contain only memory iterators; got axis %s", label, common.PyRepr(it.Axis.Name))
		}
	}
	return nil
}

// tmaSmemIterOrder is TVM _smem_iter_order: the non-unit shared iterators
// sorted by stride, which must form one contiguous chain from stride 1.
func tmaSmemIterOrder(sliced *layout.TileLayout) ([]int, *tmaStageError) {
	type ent struct {
		stride int64
		idx    int
	}
	var active []ent
	for i, it := range sliced.Shard {
		if it.Extent != 1 {
			active = append(active, ent{it.Stride, i})
		}
	}
	slices.SortStableFunc(active, func(a, b ent) int {
		if a.stride != b.stride {
			return int(a.stride - b.stride)
		}
		return a.idx - b.idx
	})
	if len(active) == 0 {
		return nil, tmaAutoFail("shared-chain", "copy region has no non-unit shared memory iterator")
	}
	order := make([]int, len(active))
	for i, a := range active {
		order[i] = a.idx
	}
	prev := sliced.Shard[order[0]]
	if e := tmaRequire(tmaProofBool(prev.Stride == 1), "shared-chain", fmt.Sprintf("smallest shared stride must be 1, got %d", prev.Stride)); e != nil {
		return nil, e
	}
	for pos := 1; pos < len(order); pos++ {
		cur := sliced.Shard[order[pos]]
		want := prev.Stride * prev.Extent
		if e := tmaRequire(tmaProofBool(cur.Stride == want), "shared-chain",
			fmt.Sprintf("shared iter %d at sorted position %d has stride=%d, expected %d after extent=%d", order[pos], pos, cur.Stride, want, prev.Extent)); e != nil {
			return nil, e
		}
		prev = cur
	}
	return order, nil
}

// tmaSliceGlobal is TVM _slice_global_layout: group the global layout by
// the buffer shape and slice each dimension's group on its own.
func tmaSliceGlobal(g common.Region) (*layout.TileLayout, *tmaStageError) {
	tile := tmaSmemTile(g.Lay, g.Shape)
	if f := tmaPlainMemory(tile, "global"); f != nil {
		dispatch.Raise("ValueError", "%s", f.msg)
	}
	grouped, seps, err := layout.Group(tile, g.Shape)
	if err != nil {
		return nil, tmaAutoFail("global-slice", fmt.Sprintf("cannot group global layout by buffer shape: %v", err))
	}
	var shard []layout.Iter
	for d := range g.Shape {
		grp := grouped.Shard[seps[d]:seps[d+1]]
		if len(grp) == 1 {
			// One iter: the slice is the region's extent at the iter's
			// stride, also past the tensor's end (TMA fills out-of-bounds
			// elements), as TVM slices it.
			shard = append(shard, layout.Iter{Extent: g.Exts[d], Stride: grp[0].Stride, Axis: grp[0].Axis})
			continue
		}
		start, isConst := ir.ConstInt(g.Mins[d])
		if !isConst {
			// A symbolic start only moves the offset when the group is one
			// iter or the start selects whole steps of its outer iters;
			// the shard is then the slice at 0.
			if len(grp) > 1 && g.Exts[d] != 1 {
				if _, ok := common.SymGroupOffset(grp, g.Mins[d], g.Exts[d]); !ok {
					return nil, &tmaStageError{fmt.Sprintf("non-constant region start %s: tilels cannot slice this layout at a symbolic offset", dispatch.ExprText(g.R))}
				}
			}
			start = 0
		}
		sub, err := layout.SliceTile(layout.NewTile(grp, nil, nil), []int64{g.Shape[d]}, [][2]int64{{start, start + g.Exts[d]}})
		if err != nil || sub == nil {
			return nil, tmaAutoFail("global-slice", fmt.Sprintf("global dimension %d cannot be sliced at start=%s, extent=%d", d, tmaExprText(g.Mins[d]), g.Exts[d]))
		}
		shard = append(shard, sub.Shard...)
	}
	return layout.NewTile(shard, nil, nil), nil
}

// tmaBuildAutoGt is TVM _build_auto_gt.
func tmaBuildAutoGt(g common.Region, sliced *layout.TileLayout) ([]tmaGt, *tmaStageError) {
	gs, e := tmaSliceGlobal(g)
	if e != nil {
		return nil, e
	}
	smemShape := make([]int64, len(sliced.Shard))
	for i, it := range sliced.Shard {
		smemShape[i] = it.Extent
	}
	if len(smemShape) == 0 {
		return nil, tmaAutoFail("group-global", "sliced shared layout has no iterators")
	}
	grouped, seps, err := layout.GroupMany(gs, [][]int64{smemShape, g.Exts})
	if err != nil {
		return nil, tmaAutoFail("group-global", fmt.Sprintf("cannot jointly group global layout by shared shape=%s and copy shape=%s: %v", tmaPyIntTuple(smemShape), tmaPyIntTuple(g.Exts), err))
	}
	smemSep, copySep := seps[0], seps[1]
	shardToSmem := map[int]int{}
	for si := range smemShape {
		for k := smemSep[si]; k < smemSep[si+1]; k++ {
			shardToSmem[k] = si
		}
	}
	recs := make([]*tmaGt, len(grouped.Shard))
	for cd := 0; cd+1 < len(copySep); cd++ {
		its := grouped.Shard[copySep[cd]:copySep[cd+1]]
		prod := int64(1)
		for _, it := range its {
			prod *= it.Extent
		}
		if e := tmaRequire(tmaProofBool(prod == g.Exts[cd]), "copy-group", fmt.Sprintf("group=%d iterator product=%d does not equal copy extent=%d", cd, prod, g.Exts[cd])); e != nil {
			return nil, e
		}
		if len(its) == 0 {
			return nil, tmaAutoFail("copy-group", fmt.Sprintf("group=%d start=%s extent=%d has no global iterator", cd, tmaExprText(g.Mins[cd]), g.Exts[cd]))
		}
		inner := int64(1)
		for _, it := range its[1:] {
			inner *= it.Extent
		}
		if e := tmaRequire(tmaProofDivisible(g.Mins[cd], inner), "coordinate", fmt.Sprintf("group=%d start=%s is not divisible by inner_product=%d", cd, tmaExprText(g.Mins[cd]), inner)); e != nil {
			return nil, e
		}
		if tmaIsRuntimeDim(g.Shape[cd]) && inner != 1 {
			return nil, tmaRuntimeSplit(g, g.Buf.ShapeExpr[cd], inner)
		}
		if e := tmaRequire(tmaProofBool(tmaFloorModInt(g.Shape[cd], inner) == 0), "global-shape", fmt.Sprintf("group=%d tensor extent=%d is not divisible by inner_product=%d", cd, g.Shape[cd], inner)); e != nil {
			return nil, e
		}
		for li, it := range its {
			k := copySep[cd] + li
			smemIdx, ok := shardToSmem[k]
			if !ok {
				smemIdx = -1
			}
			if it.Extent == 1 {
				smemIdx = -1
			} else if smemIdx < 0 {
				if e := tmaRequire(tmaDisproven, "coordinate-only-dim", fmt.Sprintf("global iterator=%d copy group=%d extent=%d has no shared-memory iterator", k, cd, it.Extent)); e != nil {
					return nil, e
				}
			}
			r := &tmaGt{extent: it.Extent, stride: it.Stride, smemIdx: smemIdx, copyDim: cd, globalDim: it.Extent, coord: common.Cst(0)}
			if li == 0 {
				r.globalDim = tmaFloorDivInt(g.Shape[cd], inner)
				r.coord = tmaSimplify(tmaFloorDiv(g.Mins[cd], inner))
			}
			recs[k] = r
		}
	}
	out := make([]tmaGt, len(recs))
	for i, r := range recs {
		if r == nil {
			return nil, tmaAutoFail("copy-group", "global iterator was not assigned to a copy-region dimension")
		}
		out[i] = *r
	}
	return out, nil
}

// tmaAutoSpecForPrefix is TVM _auto_spec_for_prefix: the descriptor whose
// box holds the first `prefix` shared iterators of the chain, the rest
// becoming issue axes.
func tmaAutoSpecForPrefix(in tmaAutoInput, sliced *layout.TileLayout, order []int, gts []tmaGt, prefix, swizzle int, desc tmaDescriptor, smemBase ir.Expr) (*tmaSpecPlan, *tmaStageError) {
	selected := map[int]bool{}
	for _, i := range order[:prefix] {
		selected[i] = true
	}
	bySmem := make([][]int, len(sliced.Shard))
	var detached []int
	for i, gt := range gts {
		if gt.smemIdx < 0 {
			detached = append(detached, i)
		} else {
			bySmem[gt.smemIdx] = append(bySmem[gt.smemIdx], i)
		}
	}
	var cudaIdx []int
	appendRev := func(idx []int) {
		for k := len(idx) - 1; k >= 0; k-- {
			cudaIdx = append(cudaIdx, idx[k])
		}
	}
	for _, si := range order {
		appendRev(bySmem[si])
	}
	for si, it := range sliced.Shard {
		if it.Extent == 1 {
			appendRev(bySmem[si])
		}
	}
	cudaIdx = append(cudaIdx, detached...)
	if len(cudaIdx) != len(gts) {
		return nil, tmaAutoFail("descriptor-order", "not every global iterator maps to shared data or a coordinate-only dimension")
	}
	gtToDim := map[int]int{}
	for d, gi := range cudaIdx {
		gtToDim[gi] = d
	}
	n := len(cudaIdx)
	spec := &tmaSpec{
		dtype: desc.dtype, bits: desc.bits, effBytes: desc.effBytes, packed: desc.packed, forceDType: desc.forceDType,
		globalDims: make([]int64, n), box: make([]int64, n), coords: make([]ir.Expr, n), elemStrides: make([]int64, n),
		swizzle: swizzle, l2Promotion: in.rt.l2Promotion, oobFill: in.rt.oobFill, direction: in.dir, loadMode: "tile",
		arch: in.arch, mbar: in.rt.mbar, mbarShared: in.rt.mbarShared, ctaGroup: in.rt.ctaGroup, ctaMask: in.rt.ctaMask,
		cacheHint: in.rt.cacheHint, cachePolicy: in.rt.cachePolicy, reduce: in.rt.reduce, runtimeExt: in.rtExt,
	}
	full := make([]int64, n)
	for d, gi := range cudaIdx {
		gt := gts[gi]
		spec.globalDims[d] = gt.globalDim
		spec.coords[d] = gt.coord
		spec.box[d] = 1
		if gt.smemIdx >= 0 && selected[gt.smemIdx] {
			spec.box[d] = gt.extent
		}
		spec.elemStrides[d] = 1
		b, e := tmaElementsToBytes(gt.stride, desc.bits, true, "descriptor-stride", fmt.Sprintf("global stride for copy group %d", gt.copyDim))
		if e != nil {
			return nil, e
		}
		full[d] = b
	}
	spec.innerStride = gts[cudaIdx[0]].stride
	spec.globalStrides = full[1:]

	var axes []tmaIssueAxis
	for _, si := range order[prefix:] {
		it := sliced.Shard[si]
		grp := bySmem[si]
		prod := int64(1)
		for _, gi := range grp {
			prod *= gts[gi].extent
		}
		if e := tmaRequire(tmaProofBool(prod == it.Extent), "issue-axis", fmt.Sprintf("shared group=%d extent=%d maps to global product=%d", si, it.Extent, prod)); e != nil {
			return nil, e
		}
		coords := make([]tmaIssueCoord, len(grp))
		inner := int64(1)
		for k := len(grp) - 1; k >= 0; k-- {
			gt := gts[grp[k]]
			coords[k] = tmaIssueCoord{dim: gtToDim[grp[k]], divisor: inner, modulus: gt.extent}
			inner *= gt.extent
		}
		axes = append(axes, tmaIssueAxis{extent: it.Extent, smemStride: it.Stride, coords: coords})
	}
	issues := int64(1)
	for _, a := range axes {
		issues *= a.extent
	}
	boxElems := int64(1)
	for _, b := range spec.box {
		boxElems *= b
	}
	spec.transactionBits = boxElems * desc.bits
	spec.payloadBits = spec.transactionBits * issues
	sElems := int64(1)
	for _, it := range sliced.Shard {
		sElems *= it.Extent
	}
	expected := sElems * int64(in.s.Buf.Dtype.Bits)
	if e := tmaRequire(tmaProofBool(spec.payloadBits == expected), "byte-equivalence", fmt.Sprintf("prefix=%d payload=%d bits, expected=%d bits", prefix, spec.payloadBits, expected)); e != nil {
		return nil, e
	}
	base, e := tmaBufferBase(in.g.Buf, true, "global-base")
	if e != nil {
		return nil, e
	}
	spec.baseByteOffset = base
	spec.smemBase = smemBase
	return &tmaSpecPlan{spec: spec, axes: axes}, nil
}

// tmaBufferBase is TVM _buffer_base's byte offset: the view's element
// offset (tilels: static) plus its layout's memory offset, in bytes.
func tmaBufferBase(b *ir.Buffer, auto bool, stage string) (int64, *tmaStageError) {
	off := b.ElemOffset
	if b.Layout == nil {
		// a runtime dimension's default layout: no offset
	} else if t := tmaSmemTile(b.Layout, b.Shape); t != nil {
		off += t.Offset[layout.M]
	}
	return tmaElementsToBytes(off, int64(b.Dtype.Bits), auto, stage, "view base offset")
}

// tmaSmemElemOffset is the shared slice's element offset from the shared
// buffer's data pointer, TVM spec.smem_base_offset = elem_offset + layout
// offset.
func tmaSmemElemOffset(b *ir.Buffer, base ir.Expr) ir.Expr {
	var off ir.Expr = common.Cst(b.ElemOffset)
	if b.ElemOffsetExpr != nil {
		off = ir.AddE(off, b.ElemOffsetExpr)
	}
	return ir.SimplifyIndex(ir.AddE(off, base))
}

// tmaValidateAutoSharedMapping is TVM _validate_auto_shared_mapping: the
// shared pointer keeps the swizzle atom's alignment and the issue loops
// partition the sliced shared region exactly once.
func tmaValidateAutoSharedMapping(p *tmaSpecPlan, sliced *layout.TileLayout, swizzle int, sb *ir.Buffer) *tmaStageError {
	spec := p.spec
	bits := int64(sb.Dtype.Bits)
	start := tmaSmemElemOffset(sb, spec.smemBase)
	var startBytes ir.Expr
	if v, ok := ir.ConstInt(start); ok {
		b, e := tmaElementsToBytes(v, bits, true, "shared-pointer", "shared slice pointer")
		if e != nil {
			return e
		}
		startBytes = common.Cst(b)
	} else {
		if bits%8 != 0 && !common.Divisible(start, 8/bits) {
			return tmaAutoFail("shared-pointer", fmt.Sprintf("shared slice pointer=%s elements at %d bits is not provably byte aligned", tmaExprText(start), bits))
		}
		startBytes = tmaSimplify(ir.MulE(start, common.Cst(bits/8)))
	}
	atom := map[int]int64{0: 16, 1: 32, 2: 64, 3: 128}[swizzle]
	if e := tmaRequire(tmaProofDivisible(startBytes, atom), "shared-pointer", fmt.Sprintf("shared slice offset=%sB must preserve %dB alignment", tmaExprText(startBytes), atom)); e != nil {
		return e
	}
	txElems := tmaFloorDivInt(spec.transactionBits, bits)
	if e := tmaRequire(tmaProofBool(spec.transactionBits%bits == 0), "issue-coverage", fmt.Sprintf("transaction=%d bits is not an integral number of %d-bit shared elements", spec.transactionBits, bits)); e != nil {
		return e
	}
	covered := txElems
	for i, a := range p.axes {
		if e := tmaRequire(tmaProofBool(a.smemStride == covered), "issue-coverage", fmt.Sprintf("issue axis=%d stride=%d does not follow the covered prefix=%d", i, a.smemStride, covered)); e != nil {
			return e
		}
		covered *= a.extent
	}
	n := int64(1)
	for _, it := range sliced.Shard {
		n *= it.Extent
	}
	return tmaRequire(tmaProofBool(covered == n), "issue-coverage", fmt.Sprintf("issue loops plus one box cover %d shared elements, but the sliced region contains %d", covered, n))
}

func tmaIssueDims(axes []tmaIssueAxis) map[int]bool {
	m := map[int]bool{}
	for _, a := range axes {
		for _, c := range a.coords {
			m[c.dim] = true
		}
	}
	return m
}

// tmaRemapAfterRemove is TVM _remap_issue_axes_after_remove.
func tmaRemapAfterRemove(axes []tmaIssueAxis, removed int) []tmaIssueAxis {
	out := make([]tmaIssueAxis, len(axes))
	for i, a := range axes {
		cs := make([]tmaIssueCoord, len(a.coords))
		for k, c := range a.coords {
			if c.dim > removed {
				c.dim--
			}
			cs[k] = c
		}
		out[i] = tmaIssueAxis{extent: a.extent, smemStride: a.smemStride, coords: cs}
	}
	return out
}

// tmaInnerDimLegal is TVM _auto_inner_dimension_is_legal.
func tmaInnerDimLegal(s *tmaSpec, globalDim, box int64) bool {
	if s.interleave != 0 {
		return true
	}
	if s.packed != "" {
		return globalDim%128 == 0 && box == 128
	}
	inner := box * s.effBytes
	if inner%16 != 0 {
		return false
	}
	if atom, ok := tmaSwizzleAtomBytes[s.swizzle]; ok && inner > atom {
		return false
	}
	return true
}

// tmaRemoveDim drops descriptor dimension d (its byte stride from full).
func tmaRemoveDim(p *tmaSpecPlan, full []int64, d int) *tmaSpecPlan {
	s := p.spec.clone()
	s.globalDims = slices.Delete(s.globalDims, d, d+1)
	s.box = slices.Delete(s.box, d, d+1)
	s.coords = slices.Delete(s.coords, d, d+1)
	s.elemStrides = slices.Delete(s.elemStrides, d, d+1)
	full = slices.Delete(slices.Clone(full), d, d+1)
	s.globalStrides = full[1:]
	return &tmaSpecPlan{spec: s, axes: tmaRemapAfterRemove(p.axes, d)}
}

// tmaCanonicalizeAutoPlan is TVM _canonicalize_auto_plan: drop unit
// dimensions and flatten contiguous pairs without changing a byte address.
func tmaCanonicalizeAutoPlan(p *tmaSpecPlan) *tmaSpecPlan {
	cur := p
	for {
		s := cur.spec
		full := append([]int64{s.effBytes * s.innerStride}, s.globalStrides...)
		issueDims := tmaIssueDims(cur.axes)
		removed := false
		if s.rank() > 1 {
			for d := 0; d < s.rank(); d++ {
				if issueDims[d] || s.globalDims[d] != 1 || s.box[d] != 1 || s.elemStrides[d] != 1 {
					continue
				}
				if d == 0 && (full[1] != full[0] || !tmaInnerDimLegal(s, s.globalDims[1], s.box[1])) {
					continue
				}
				cur = tmaRemoveDim(cur, full, d)
				removed = true
				break
			}
		}
		if removed {
			continue
		}
		merged, promoted := false, false
		for in := 0; in+1 < s.rank(); in++ {
			out := in + 1
			if issueDims[in] || issueDims[out] {
				continue
			}
			mg := s.globalDims[in] * s.globalDims[out]
			mb := s.box[in] * s.box[out]
			ok := s.box[in] == s.globalDims[in] && tmaProofZero(s.coords[in]) == tmaProven &&
				full[out] == s.globalDims[in]*full[in] && s.elemStrides[in] == 1 && s.elemStrides[out] == 1 &&
				mg > 0 && mg <= 1<<32
			if in == 0 && !tmaInnerDimLegal(s, mg, mb) {
				continue
			}
			if !ok {
				continue
			}
			if mb < 1 || mb > 256 {
				if in == 0 && s.rank() > 2 && mb > 256 && s.box[out] == s.globalDims[out] && tmaProofZero(s.coords[out]) == tmaProven {
					if pr := tmaPromoteAutoOnce(cur); pr != nil {
						ps := pr.spec
						pg := ps.globalDims[0] * ps.globalDims[1]
						pb := ps.box[0] * ps.box[1]
						if pb >= 1 && pb <= 256 && pg > 0 && pg <= 1<<32 && tmaInnerDimLegal(ps, pg, pb) {
							cur = pr
							promoted = true
							break
						}
					}
				}
				continue
			}
			ns := s.clone()
			ns.globalDims[in] = mg
			ns.box[in] = mb
			ns.coords[in] = ir.SimplifyIndex(ir.MulE(s.coords[out], common.Cst(s.globalDims[in])))
			ns.globalDims = slices.Delete(ns.globalDims, out, out+1)
			ns.box = slices.Delete(ns.box, out, out+1)
			ns.coords = slices.Delete(ns.coords, out, out+1)
			ns.elemStrides = slices.Delete(ns.elemStrides, out, out+1)
			nf := slices.Delete(slices.Clone(full), out, out+1)
			ns.globalStrides = nf[1:]
			cur = &tmaSpecPlan{spec: ns, axes: tmaRemapAfterRemove(cur.axes, out)}
			merged = true
			break
		}
		if promoted {
			continue
		}
		if !merged {
			return cur
		}
	}
}

// tmaPromoteDType is TVM _PROMOTE_DTYPE: the descriptor unit of twice the
// width, by effective bytes.
var tmaPromoteDType = map[int64]ir.DataType{1: ir.DataType{Code: ir.UInt, Bits: 16}, 2: ir.UInt32, 4: ir.DataType{Code: ir.UInt, Bits: 64}}

// tmaPromotionAllowed is TVM _promotion_allowed.
func tmaPromotionAllowed(p *tmaSpecPlan) bool {
	s := p.spec
	if _, ok := tmaPromoteDType[s.effBytes]; !ok {
		return false
	}
	if s.packed != "" || s.interleave != 0 || s.oobFill != 0 || s.loadMode != "tile" || s.reduce != "" || s.forceDType >= 0 {
		return false
	}
	if s.innerStride != 1 {
		return false
	}
	for _, e := range s.elemStrides {
		if e != 1 {
			return false
		}
	}
	return !tmaIssueDims(p.axes)[0]
}

// tmaPromoteAutoOnce is TVM _promote_auto_once: halve the innermost
// dimension in a descriptor unit of twice the width.
func tmaPromoteAutoOnce(p *tmaSpecPlan) *tmaSpecPlan {
	if !tmaPromotionAllowed(p) {
		return nil
	}
	s := p.spec
	if s.globalDims[0]%2 != 0 || s.box[0]%2 != 0 || tmaProofDivisible(s.coords[0], 2) != tmaProven {
		return nil
	}
	for _, st := range s.globalStrides {
		if st%(s.effBytes*2) != 0 {
			return nil
		}
	}
	dt := tmaPromoteDType[s.effBytes]
	ns := s.clone()
	ns.dtype, ns.bits, ns.effBytes = dt, int64(dt.Bits), int64(dt.Bits)/8
	ns.globalDims[0] /= 2
	ns.box[0] /= 2
	ns.coords[0] = tmaFloorDiv(s.coords[0], 2)
	tx := ns.bits
	for _, b := range ns.box {
		tx *= b
	}
	ns.transactionBits = tx
	ns.payloadBits = tx * p.issueExtent()
	if ns.payloadBits != s.payloadBits {
		return nil
	}
	return &tmaSpecPlan{spec: ns, axes: p.axes, prefix: p.prefix, chain: p.chain}
}

// tmaRepairAutoCandidate is TVM _repair_auto_candidate: canonicalize,
// validate, promote while only repairable rules fail.
func tmaRepairAutoCandidate(p *tmaSpecPlan) (*tmaSpecPlan, []tmaFinding) {
	cand := p
	for {
		cand = tmaCanonicalizeAutoPlan(cand)
		failures := tmaValidationFailures(cand.spec, true)
		if len(failures) == 0 {
			return cand, nil
		}
		for _, f := range failures {
			if !f.repairable {
				return nil, failures
			}
		}
		pr := tmaPromoteAutoOnce(cand)
		if pr == nil {
			return nil, failures
		}
		cand = pr
	}
}

// tmaPyIntTuple prints a Python tuple of ints: (64, 8), (64,).
func tmaPyIntTuple(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// tmaExprList prints a list of expressions: [0, s * 64].
func tmaExprList(es []ir.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = tmaExprText(e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
