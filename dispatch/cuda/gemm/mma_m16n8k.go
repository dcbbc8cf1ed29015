package gemm

// gemm/mma.m16n8k*: D = A·B (+ C) on register fragments with warp-level
// mma.sync.aligned.m16n8k{16,8} (bf16/f16 inputs, f32 accumulation).
//
// Mirrors TVM backend/cuda/operator/tile_primitive/gemm/mma_m16n8k_.py
// (apache-tvm 0.25.0.post1). All four operands live in registers ("local")
// with per-lane fragment layouts. Each operand's layout is sliced to its
// region, canonicalized and grouped into its 2-D buffer shape, split per
// logical dim (A→M,K, B→K,N, C/D→M,N; the transpose flags only swap which
// buffer dim is which), and the followers are aligned to the anchors of
// each dim (M: D.M → A.M, C.M; N: D.N → B.N, C.N; K: A.K → B.K). The
// first instruction of MMA_INSTRUCTIONS whose shape divides M/N/K, whose
// dtype signature matches and whose m16n8 fragment (lane = 4g + t;
// C/D: M = g + 8rM, N = 2t + rN; A: M as C, K = 2t + p + 8kHi;
// B: K as A, N = g) tiles every operand wins.
//
// Predicates: full_active_lanes (every intra axis at offset 0 with its full
// extent: laneid 32, wid_in_wg 4, warpid threadIdx.x/32), no_replica.
// Declines (emitter): non-local operands, alpha != 1, beta not in {0, 1},
// non-2-D operands, non-static extents, layouts that cannot be sliced,
// grouped or aligned, more than one thread axis, no fitting instruction.
//
// Emits, fully unrolled: per output tile (m, n), D's accumulator registers
// set to C's (beta = 1) or to 0 (beta = 0), then one T.ptx.mma per K tile
// accumulating in place (c = d), through .local() views of the operands
// whose layouts hold only the per-thread register iters.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// MmaM16n8k is the "mma.m16n8k*" variant.
var MmaM16n8k = dispatch.Variant{
	Op: "gemm", Name: "mma.m16n8k*", Target: "cuda", Priority: 10,
	When: []dispatch.Pred{
		{Name: "full_active_lanes", Check: fullActiveLanes},
		{Name: "no_replica", Check: noReplica},
	},
	Emit: emitMma,
}

// mmaInst is one concrete mma.sync instruction (TVM MmaInst).
type mmaInst struct {
	name    string
	m, n, k int64
	dtype   [4]string // A, B, C, D
	kPack   int64     // contiguous K elements packed in one A/B register
}

var (
	bf16F32 = [4]string{"bfloat16", "bfloat16", "float32", "float32"}
	f16F32  = [4]string{"float16", "float16", "float32", "float32"}
)

// mmaInstructions is TVM MMA_INSTRUCTIONS, in its order.
var mmaInstructions = []mmaInst{
	{"m16n8k16.bf16", 16, 8, 16, bf16F32, 2},
	{"m16n8k16.f16", 16, 8, 16, f16F32, 2},
	{"m16n8k8.bf16", 16, 8, 8, bf16F32, 2},
	{"m16n8k8.f16", 16, 8, 8, f16F32, 2},
}

var operandNames = [4]string{"D", "A", "B", "C"}

// intraRank orders the active-set axes as TVM's sctx.intra lists them
// (outer scope first).
var intraRank = map[string]int{"wgid": 1, "warpid": 2, "wid_in_wg": 3, "tid_in_wg": 4, "laneid": 5}

func intraOrder(c *dispatch.Call) []string {
	names := c.IntraNames()
	sort.SliceStable(names, func(i, j int) bool { return intraRank[names[i]] < intraRank[names[j]] })
	return names
}

// fullActiveLanes is TVM _full_active_lanes: mma.sync.aligned needs every
// lane of the scope active, un-narrowed.
func fullActiveLanes(c *dispatch.Call) *dispatch.Decline {
	full := map[string]int64{"laneid": 32, "wid_in_wg": 4}
	if _, ok := c.Intra["warpid"]; ok {
		tx, ok := c.ThreadIdxX()
		if !ok {
			return c.Decline(c.Tile.OpSpan, "cta scope needs threadIdx.x in launch_params")
		}
		full["warpid"] = tx / 32
	}
	for _, axis := range intraOrder(c) {
		want, ok := full[axis]
		if !ok {
			return c.Declinef(c.Tile.OpSpan, "unsupported active-set axis '%s'", axis)
		}
		r := c.Intra[axis]
		if !r.Static() {
			return c.Declinef(c.Tile.OpSpan, "predicate exception: TypeError: int() argument must be a string, a bytes-like object or a real number, not '%s'", dispatch.ExprText(r.Selector))
		}
		if r.Extent != want || r.Offset != 0 {
			return c.Declinef(c.Tile.OpSpan, "active %s is [%d, %d), need full [0, %d)", axis, r.Offset, r.Offset+r.Extent, want)
		}
	}
	return nil
}

// noReplica is TVM _no_replica: no operand layout broadcasts.
func noReplica(c *dispatch.Call) *dispatch.Decline {
	for i, name := range operandNames {
		r, ok := c.Region(i)
		if !ok {
			continue
		}
		switch l := r.Buf.Layout.(type) {
		case nil:
			return c.Decline(c.ArgSpan(i), "predicate exception: AttributeError: 'NoneType' object has no attribute 'replica'")
		case *layout.TileLayout:
			if len(l.Replica) > 0 {
				// TVM prints the replica array as a tuple of T.Iter.
				parts := make([]string, len(l.Replica))
				for j, it := range l.Replica {
					parts[j] = fmt.Sprintf("T.Iter(%d, %d, \"%s\")", it.Extent, it.Stride, it.Axis.Name)
				}
				rep := "(" + strings.Join(parts, ", ") + ")"
				if len(parts) == 1 {
					rep = "(" + parts[0] + ",)"
				}
				return c.Declinef(c.ArgSpan(i), "%s layout has replica %s", name, rep)
			}
		}
	}
	return nil
}

// carve is one fragment group of _frag_group: extent, pinned stride (0:
// free) and whether the iter must be a thread iter.
type carve struct {
	ext, stride int64
	thread      bool
}

// fragGroup is TVM _frag_group: group sub-layout l into
// [thr/∏lane, lane..., mem/∏mem, mem...] and check every carved group.
func fragGroup(l *layout.TileLayout, lane, mem []carve, thrTotal, memTotal int64) (*layout.TileLayout, []int, bool) {
	laneProd, memProd := int64(1), int64(1)
	shape := []int64{0}
	for _, cv := range lane {
		laneProd *= cv.ext
		shape = append(shape, cv.ext)
	}
	shape = append(shape, 0)
	for _, cv := range mem {
		memProd *= cv.ext
		shape = append(shape, cv.ext)
	}
	shape[0] = thrTotal / laneProd
	shape[1+len(lane)] = memTotal / memProd
	g, seps, ok := layout.TryGroup(l, shape)
	if !ok {
		return nil, nil, false
	}
	check := func(idx int, cv carve) bool {
		grp := g.Shard[seps[idx]:seps[idx+1]]
		if len(grp) != 1 {
			return false
		}
		if grp[0].Extent == 1 {
			return true
		}
		if grp[0].Axis.IsThread() != cv.thread {
			return false
		}
		return cv.stride == 0 || grp[0].Stride == cv.stride
	}
	for j, cv := range lane {
		if !check(1+j, cv) {
			return nil, nil, false
		}
	}
	for j, cv := range mem {
		if !check(2+len(lane)+j, cv) {
			return nil, nil, false
		}
	}
	return g, seps, true
}

func grp(g *layout.TileLayout, seps []int, i int) []layout.Iter { return g.Shard[seps[i]:seps[i+1]] }

func extProd(its []layout.Iter) int64 {
	p := int64(1)
	for _, it := range its {
		p *= it.Extent
	}
	return p
}

// sameIters is TVM _same_iters (extent-1 iters ignored).
func sameIters(a, b []layout.Iter) bool {
	a, b = nonUnit(a), nonUnit(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Extent != b[i].Extent || a[i].Stride != b[i].Stride || a[i].Axis.Name != b[i].Axis.Name {
			return false
		}
	}
	return true
}

func nonUnit(its []layout.Iter) []layout.Iter {
	var out []layout.Iter
	for _, it := range its {
		if it.Extent != 1 {
			out = append(out, it)
		}
	}
	return out
}

// canonPerm is TVM _canon_perm: thread iters first, then memory iters,
// each by descending stride (stable).
func canonPerm(its []layout.Iter) []int {
	var thr, mem []int
	for i, it := range its {
		if it.Axis.IsThread() {
			thr = append(thr, i)
		} else {
			mem = append(mem, i)
		}
	}
	byStride := func(a, b int) int {
		switch {
		case its[a].Stride > its[b].Stride:
			return -1
		case its[a].Stride < its[b].Stride:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(thr, byStride)
	slices.SortStableFunc(mem, byStride)
	return append(thr, mem...)
}

func canonSub(l *layout.TileLayout) *layout.TileLayout {
	return layout.PermuteDims(l, canonPerm(l.Shard))
}

// regionTotals is TVM _region_totals.
func regionTotals(l *layout.TileLayout) (thr, mem int64) {
	thr, mem = 1, 1
	for _, it := range l.Shard {
		if it.Axis.IsThread() {
			thr *= it.Extent
		} else {
			mem *= it.Extent
		}
	}
	return
}

// split is TVM _split: one shard-only sub-layout per group, plus the offset.
func split(g *layout.TileLayout, seps []int) ([]*layout.TileLayout, map[*layout.Axis]int64) {
	subs := make([]*layout.TileLayout, len(seps)-1)
	for i := range subs {
		subs[i] = layout.NewTile(g.Shard[seps[i]:seps[i+1]], nil, nil)
	}
	return subs, g.Offset
}

// regLayout is TVM _reg_layout: the per-thread register layout of the
// groups (extent-1 iters and thread offsets dropped) and its view shape.
func regLayout(groups [][]layout.Iter, offset map[*layout.Axis]int64) (*layout.TileLayout, []int64) {
	var its []layout.Iter
	shape := make([]int64, len(groups))
	for i, g := range groups {
		its = append(its, nonUnit(g)...)
		shape[i] = extProd(g)
	}
	off := map[*layout.Axis]int64{}
	for a, v := range offset {
		if !a.IsThread() {
			off[a] = v
		}
	}
	return layout.NewTile(its, nil, off), shape
}

// operand is one gemm operand after slicing and grouping.
type operand struct {
	name   string
	region *ir.Region
	buf    *ir.Buffer
}

// mmaPlan is everything the emitter decided.
type mmaPlan struct {
	inst                           mmaInst
	M, N, K                        int64
	dReg, cReg, aReg, bReg         *layout.TileLayout
	dShape, cShape, aShape, bShape []int64
	useC                           bool
	syms                           [4]ir.Expr // D, A, B, C symbolic register offsets (nil: none)
}

func declinef(c *dispatch.Call, format string, args ...any) *dispatch.Decline {
	return c.Declinef(c.Span(), format, args...)
}

func emitMma(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	p, d := planMma(c)
	if d != nil {
		return nil, d
	}
	return lowerMma(c, p), nil
}

// planMma is the analysis half of TVM gemm_cuda_mma_dispatch.
func planMma(c *dispatch.Call) (*mmaPlan, *dispatch.Decline) {
	var ops [4]operand
	for i, name := range operandNames {
		r, ok := c.Region(i)
		if !ok {
			dispatch.Raise("TypeError", "argument %d of gemm is not a buffer region", i)
		}
		ops[i] = operand{name, r, r.Buf}
	}
	for i, o := range ops {
		if o.buf.Scope != "local" {
			return nil, c.Declinef(c.ArgSpan(i), "gemm mma requires %s in register (local) scope, got %s", o.name, o.buf.Scope)
		}
	}
	args := c.Tile.Args
	transA, transB := flag(args, 4), flag(args, 5)
	alpha, beta := scalarArg(args, 6, 1), scalarArg(args, 7, 0)
	if v, ok := constScalar(alpha); !ok || v != 1 {
		return nil, c.Declinef(c.ArgSpan(6), "gemm mma supports only alpha=1, got alpha=%s", exprRepr(alpha))
	}
	bv, ok := constScalar(beta)
	if !ok || (bv != 0 && bv != 1) {
		return nil, c.Declinef(c.ArgSpan(7), "gemm mma supports only beta in {0, 1}, got beta=%s", exprRepr(beta))
	}

	matExtents := func(i int) ([]ir.Expr, *dispatch.Decline) {
		var ext []ir.Expr
		for _, e := range ops[i].region.Extent {
			if v, ok := ir.ConstInt(ir.SimplifyIndex(e)); ok && v == 1 {
				continue
			}
			ext = append(ext, e)
		}
		if len(ext) != 2 {
			parts := make([]string, len(ext))
			for j, e := range ext {
				parts[j] = exprRepr(e)
			}
			return nil, c.Declinef(c.ArgSpan(i), "gemm mma expects 2D %s, got non-unit extents [%s]", ops[i].name, strings.Join(parts, ", "))
		}
		return ext, nil
	}
	aExt, d := matExtents(1)
	if d != nil {
		return nil, d
	}
	bExt, d := matExtents(2)
	if d != nil {
		return nil, d
	}
	dExt, d := matExtents(0)
	if d != nil {
		return nil, d
	}
	cExt, d := matExtents(3)
	if d != nil {
		return nil, d
	}
	mE, kE := aExt[0], aExt[1]
	if transA {
		mE, kE = aExt[1], aExt[0]
	}
	bkE, nE := bExt[0], bExt[1]
	if transB {
		bkE, nE = bExt[1], bExt[0]
	}
	t := dispatch.ExprText
	if !provablyEqual(bkE, kE) {
		dispatch.Raise("AssertionError", "gemm mma: A K=%s != B K=%s", t(kE), t(bkE))
	}
	if !provablyEqual(dExt[0], mE) || !provablyEqual(dExt[1], nE) {
		dispatch.Raise("AssertionError", "gemm mma: D dims (%s, %s) != (M=%s, N=%s)", t(dExt[0]), t(dExt[1]), t(mE), t(nE))
	}
	if !provablyEqual(cExt[0], mE) || !provablyEqual(cExt[1], nE) {
		dispatch.Raise("AssertionError", "gemm mma: C dims (%s, %s) != (M=%s, N=%s)", t(cExt[0]), t(cExt[1]), t(mE), t(nE))
	}
	var dims [3]int64
	for i, e := range []ir.Expr{mE, nE, kE} {
		v, ok := ir.ConstInt(ir.SimplifyIndex(e))
		if !ok {
			return nil, c.Declinef(c.Span(), "gemm mma needs static %s extent, got %s", [3]string{"M", "N", "K"}[i], t(e))
		}
		dims[i] = v
	}
	M, N, K := dims[0], dims[1], dims[2]

	// syms[i] is the memory offset that operand i's symbolic region starts
	// add to its registers (nil when its region is static): a K loop's
	// A[:, k*16:k*16+16] is sliced as at 0, plus k times the step's
	// register stride (TVM slices with the symbolic begin).
	var syms [4]ir.Expr
	sliceGroup := func(i int, shape2d []int64) (*layout.TileLayout, []int, *dispatch.Decline) {
		o := ops[i]
		g, ok := common.ReadRegion(c, i)
		if !ok {
			return nil, nil, c.Declinef(c.ArgSpan(i), "gemm mma: cannot slice %s layout to its region", o.name)
		}
		if !g.Static {
			offs, ok := common.SymOffsets(g)
			if !ok {
				return nil, nil, c.Declinef(c.ArgSpan(i), "gemm mma: cannot slice %s layout to its region", o.name)
			}
			syms[i] = offs[layout.M]
		}
		tl, ok := o.buf.Layout.(*layout.TileLayout)
		if !ok {
			dispatch.Raise("AttributeError", "'%s' object has no attribute 'shard'", layoutTypeName(o.buf.Layout))
		}
		sl, err := layout.Slice(tl, o.buf.Shape, g.Bounds)
		if err != nil {
			return nil, nil, c.Declinef(c.ArgSpan(i), "gemm mma: %s layout not tileable as %s: %s", o.name, pyTuple(shape2d), groupError(layout.CanonicalTile(tl), o.buf.Shape))
		}
		if sl == nil {
			return nil, nil, c.Declinef(c.ArgSpan(i), "gemm mma: cannot slice %s layout to its region", o.name)
		}
		canon := layout.CanonicalTile(sl.(*layout.TileLayout))
		var axes []string
		for _, it := range canon.Shard {
			if it.Axis.IsThread() && !slices.Contains(axes, it.Axis.Name) {
				axes = append(axes, it.Axis.Name)
			}
		}
		if len(axes) > 1 {
			sort.Strings(axes)
			for j := range axes {
				axes[j] = "'" + axes[j] + "'"
			}
			return nil, nil, c.Declinef(c.ArgSpan(i), "gemm mma: %s has >1 thread axis [%s], only one supported", o.name, strings.Join(axes, ", "))
		}
		gr, seps, ok := layout.TryGroup(canon, shape2d)
		if !ok {
			return nil, nil, c.Declinef(c.ArgSpan(i), "gemm mma: %s layout not tileable as %s: %s", o.name, pyTuple(shape2d), groupError(canon, shape2d))
		}
		return gr, seps, nil
	}
	aShape2 := []int64{M, K}
	if transA {
		aShape2 = []int64{K, M}
	}
	bShape2 := []int64{K, N}
	if transB {
		bShape2 = []int64{N, K}
	}
	aG, aSeps, d := sliceGroup(1, aShape2)
	if d != nil {
		return nil, d
	}
	bG, bSeps, d := sliceGroup(2, bShape2)
	if d != nil {
		return nil, d
	}
	cG, cSeps, d := sliceGroup(3, []int64{M, N})
	if d != nil {
		return nil, d
	}
	dG, dSeps, d := sliceGroup(0, []int64{M, N})
	if d != nil {
		return nil, d
	}

	dSubs, dOff := split(dG, dSeps)
	cSubs, cOff := split(cG, cSeps)
	aSubs, aOff := split(aG, aSeps)
	bSubs, bOff := split(bG, bSeps)
	DM, DN := dSubs[0], dSubs[1]
	CM, CN := cSubs[0], cSubs[1]
	AM, AK := aSubs[0], aSubs[1]
	if transA {
		AM, AK = aSubs[1], aSubs[0]
	}
	BK, BN := bSubs[0], bSubs[1]
	if transB {
		BK, BN = bSubs[1], bSubs[0]
	}
	align := func(anchor, follower *layout.TileLayout, name string) (*layout.TileLayout, *dispatch.Decline) {
		ext := anchor.Extents()
		g, seps, ok := layout.TryGroup(follower, ext)
		if !ok {
			return nil, declinef(c, "gemm mma: %s not alignable to anchor extents %s: %s", name, pyList(ext), groupError(follower, ext))
		}
		return layout.PermuteByGroups(g, seps, canonPerm(anchor.Shard)), nil
	}
	if AM, d = align(DM, AM, "A.M"); d != nil {
		return nil, d
	}
	if CM, d = align(DM, CM, "C.M"); d != nil {
		return nil, d
	}
	if BN, d = align(DN, BN, "B.N"); d != nil {
		return nil, d
	}
	if CN, d = align(DN, CN, "C.N"); d != nil {
		return nil, d
	}
	if BK, d = align(AK, BK, "B.K"); d != nil {
		return nil, d
	}
	DM, DN, AK = canonSub(DM), canonSub(DN), canonSub(AK)
	mThr, mMem := regionTotals(DM)
	nThr, nMem := regionTotals(DN)
	kThr, kMem := regionTotals(AK)

	sig := [4]string{ops[1].buf.Dtype.String(), ops[2].buf.Dtype.String(), ops[3].buf.Dtype.String(), ops[0].buf.Dtype.String()}
	type grouped struct {
		g    *layout.TileLayout
		seps []int
	}
	var chosen *mmaInst
	var gDM, gDN, gCM, gCN, gAM, gAK, gBK, gBN grouped
	for ii := range mmaInstructions {
		inst := &mmaInstructions[ii]
		if M%inst.m != 0 || N%inst.n != 0 || K%inst.k != 0 || sig != inst.dtype {
			continue
		}
		kHi := inst.k / (4 * inst.kPack)
		accM := []carve{{8, 4, true}}
		accMReg := []carve{{inst.m / 8, 0, false}}
		accN := []carve{{4, 1, true}}
		accNReg := []carve{{inst.n / 4, 1, false}}
		kLane := []carve{{4, 1, true}}
		kReg := []carve{{kHi, 0, false}, {inst.kPack, 1, false}}
		var ok bool
		try := func(dst *grouped, l *layout.TileLayout, lane, mem []carve, thr, memT int64) bool {
			dst.g, dst.seps, ok = fragGroup(l, lane, mem, thr, memT)
			return ok
		}
		if !try(&gDM, DM, accM, accMReg, mThr, mMem) || !try(&gDN, DN, accN, accNReg, nThr, nMem) ||
			!try(&gCM, CM, accM, accMReg, mThr, mMem) || !try(&gCN, CN, accN, accNReg, nThr, nMem) ||
			!try(&gAM, AM, accM, accMReg, mThr, mMem) || !try(&gAK, AK, kLane, kReg, kThr, kMem) ||
			!try(&gBK, BK, kLane, kReg, kThr, kMem) ||
			!try(&gBN, BN, []carve{{4, 8, true}}, []carve{{2, 4, true}}, nThr, nMem) {
			continue
		}
		mTo := grp(gDM.g, gDM.seps, 0)
		if !sameIters(mTo, grp(gAM.g, gAM.seps, 0)) || !sameIters(mTo, grp(gCM.g, gCM.seps, 0)) {
			continue
		}
		nTo := grp(gDN.g, gDN.seps, 0)
		if !sameIters(nTo, grp(gBN.g, gBN.seps, 0)) || !sameIters(nTo, grp(gCN.g, gCN.seps, 0)) {
			continue
		}
		if !sameIters(grp(gAK.g, gAK.seps, 0), grp(gBK.g, gBK.seps, 0)) {
			continue
		}
		chosen = inst
		break
	}
	if chosen == nil {
		return nil, declinef(c, "no mma instruction fits M=%d, N=%d, K=%d, dtypes=('%s', '%s', '%s', '%s')", M, N, K, sig[0], sig[1], sig[2], sig[3])
	}
	p := &mmaPlan{inst: *chosen, M: M, N: N, K: K, useC: bv == 1, syms: syms}
	g := func(x grouped, i int) []layout.Iter { return grp(x.g, x.seps, i) }
	p.dReg, p.dShape = regLayout([][]layout.Iter{g(gDM, 2), g(gDN, 2), g(gDM, 3), g(gDN, 3)}, dOff)
	p.cReg, p.cShape = regLayout([][]layout.Iter{g(gCM, 2), g(gCN, 2), g(gCM, 3), g(gCN, 3)}, cOff)
	p.aReg, p.aShape = regLayout([][]layout.Iter{g(gAM, 2), g(gAK, 2), g(gAM, 3), g(gAK, 3), g(gAK, 4)}, aOff)
	p.bReg, p.bShape = regLayout([][]layout.Iter{g(gBK, 2), g(gBN, 2), g(gBK, 3), g(gBK, 4)}, bOff)
	return p, nil
}

func layoutTypeName(l layout.Layout) string {
	switch l.(type) {
	case *layout.ComposeLayout:
		return "ComposeLayout"
	case nil:
		return "NoneType"
	}
	return "TileLayout"
}

// scalarArg reads alpha/beta (nil: the Python default).
func scalarArg(args []ir.Arg, i int, def float64) ir.Expr {
	if i < len(args) && args[i] != nil {
		return args[i]
	}
	return &ir.FloatImm{Value: def, Type: ir.Float32}
}

// ptxType is the PTX spelling of a dtype in an mma instruction.
func ptxType(dt string) string {
	switch dt {
	case "float32":
		return "f32"
	case "float16":
		return "f16"
	case "bfloat16":
		return "bf16"
	}
	return dt
}

// Instruction is the PTX instruction of an mma plan.
func (p *mmaPlan) instruction() string {
	a, b, cc, d := p.inst.dtype[0], p.inst.dtype[1], p.inst.dtype[2], p.inst.dtype[3]
	return fmt.Sprintf("mma.sync.aligned.m%dn%dk%d.row.col.%s.%s.%s.%s", p.inst.m, p.inst.n, p.inst.k,
		ptxType(d), ptxType(a), ptxType(b), ptxType(cc))
}

// lowerMma is the emission half of TVM gemm_cuda_mma_dispatch.
func lowerMma(c *dispatch.Call, p *mmaPlan) *dispatch.Result {
	span := c.Span()
	inst := p.inst
	// Each operand is read and written through a .local() view of its
	// registers: shaped as the reference's (tile, tile, register...) view
	// when its region is static, flat (its whole per-thread storage) when a
	// symbolic region start adds a run-time offset.
	type opView struct {
		buf   *ir.Buffer
		reg   *layout.TileLayout
		shape []int64
		sym   ir.Expr
	}
	view := func(i int, name string, shape []int64, l *layout.TileLayout) opView {
		r, _ := c.Region(i)
		b := r.Buf
		v := opView{reg: l, shape: shape, sym: p.syms[i]}
		vs, vl := shape, l
		if v.sym != nil {
			n := layout.SpanOf(b.Layout, layout.M)
			vs, vl = []int64{n}, layout.RowMajor(n)
		}
		v.buf = &ir.Buffer{Name: name, Data: b.Data, Shape: vs, Dtype: b.Dtype, Scope: "local",
			Layout: vl, Base: b, Kind: ir.DeclBuffer, Span: span}
		return v
	}
	dL := view(0, "d_local", p.dShape, p.dReg)
	cL := view(3, "c_local", p.cShape, p.cReg)
	aL := view(1, "a_local", p.aShape, p.aReg)
	bL := view(2, "b_local", p.bShape, p.bReg)
	// storage is the element an operand view's coordinate addresses: a
	// constant plus the symbolic region offset.
	storage := func(v opView, xs ...int64) (int64, ir.Expr) {
		return layout.ApplyShape(v.reg, xs, v.shape)[layout.M], v.sym
	}
	nRM, nRN, nKHi := inst.m/8, inst.n/4, inst.k/(4*inst.kPack)
	mTiles, nTiles, kTiles := p.dShape[0], p.dShape[1], p.aShape[1]
	// readC: beta = 1 copies C's accumulators into D's, except when C is D
	// itself, register for register (Tx.gemm(D, A, B, D, beta=1)): the
	// copies are no-ops, which the reference's simplifier drops.
	dB, _ := c.Region(0)
	cB, _ := c.Region(3)
	noop := func(m, n, rM, rN int64) bool {
		do, ds := storage(dL, m, n, rM, rN)
		co, cs := storage(cL, m, n, rM, rN)
		return dB.Buf == cB.Buf && do == co && (ds == nil) == (cs == nil) && (ds == nil || ir.Equal(ds, cs))
	}
	readC := false
	if p.useC {
		for m := range mTiles {
			for n := range nTiles {
				for rM := range nRM {
					for rN := range nRN {
						readC = readC || !noop(m, n, rM, rN)
					}
				}
			}
		}
	}
	// C's view is declared only when it is read.
	stmts := []ir.Stmt{&ir.Decl{Buf: dL.buf, Span: span}}
	if readC {
		stmts = append(stmts, &ir.Decl{Buf: cL.buf, Span: span})
	}
	stmts = append(stmts, &ir.Decl{Buf: aL.buf, Span: span}, &ir.Decl{Buf: bL.buf, Span: span})
	idx := func(v opView, xs ...int64) []ir.Expr {
		if v.sym != nil {
			off := layout.ApplyShape(v.reg, xs, v.shape)[layout.M]
			return []ir.Expr{ir.SimplifyIndex(ir.AddE(v.sym, common.Cst(off)))}
		}
		out := make([]ir.Expr, len(xs))
		for i, x := range xs {
			out[i] = common.Cst(x)
		}
		return out
	}
	addr := func(v opView, xs ...int64) ir.Expr {
		return &ir.AddressOf{Buf: v.buf, Indices: idx(v, xs...), Span: span}
	}
	// wordAt is 0.27's a_local.view("uint32")[coord]: the fragment's b32
	// word (its element offset / 2). Where the fragment is not at the
	// view's start (a region offset, a second K tile) the 0.27.0.post1
	// wheel indexes the word view with element strides of the outer tiles
	// (word kt*8 for the K tile at element kt*8), i.e. past the fragment;
	// tilels reads the fragment's own registers (docs/variants-releases.md).
	wordAt := func(v opView, xs ...int64) ir.Expr {
		per := int64(32 / v.buf.Dtype.Bits)
		o := layout.ApplyShape(v.reg, xs, v.shape)[layout.M]
		var e ir.Expr = common.Cst(o / per)
		if v.sym != nil {
			e = ir.SimplifyIndex(ir.AddE(divExact(v.sym, per), e))
		}
		return &ir.Load{Buf: wordView(v.buf), Indices: []ir.Expr{e}, Span: span}
	}
	str := func(s string) ir.Expr { return &ir.StringImm{Value: s, Span: span} }
	tuple := func(es []ir.Expr) ir.Expr { return &ir.Tuple{Elems: es, Span: span} }
	shape := fmt.Sprintf("m%dn%dk%d", inst.m, inst.n, inst.k)
	for m := range mTiles {
		for n := range nTiles {
			for rM := range nRM {
				for rN := range nRN {
					var v ir.Expr = &ir.FloatImm{Value: 0, Type: ir.Float32, Span: span}
					if p.useC {
						if noop(m, n, rM, rN) {
							continue
						}
						v = &ir.Load{Buf: cL.buf, Indices: idx(cL, m, n, rM, rN), Span: span}
					}
					stmts = append(stmts, &ir.Store{Buf: dL.buf, Indices: idx(dL, m, n, rM, rN), Value: v, Span: span})
				}
			}
			for k := range kTiles {
				var dP, aP, bP []ir.Expr
				for rM := range nRM {
					for rN := range nRN {
						dP = append(dP, addr(dL, m, n, rM, rN))
					}
				}
				var aW, bW []ir.Expr
				for kHi := range nKHi {
					for rM := range nRM {
						aP = append(aP, addr(aL, m, k, rM, kHi, 0))
						aW = append(aW, wordAt(aL, m, k, rM, kHi, 0))
					}
				}
				for kHi := range nKHi {
					bP = append(bP, addr(bL, k, n, kHi, 0))
					bW = append(bW, wordAt(bL, k, n, kHi, 0))
				}
				call := &ir.Call{Op: ir.OpPTXMma, Args: []ir.Expr{str(shape), str("row"), str("col"),
					str(inst.dtype[3]), str(inst.dtype[0]), str(inst.dtype[1]), str(inst.dtype[2]),
					tuple(dP), tuple(aP), tuple(bP), tuple(slices.Clone(dP))}, Span: span}
				if c.Target.Release >= release.R027 {
					call = mmaChain027(shape, inst.dtype, dP, aW, bW, span)
				}
				stmts = append(stmts, &ir.Evaluate{X: call, Span: span})
			}
		}
	}

	count := mTiles * nTiles * kTiles
	init := "D = 0 (beta = 0), then D += A·B per K tile"
	switch {
	case p.useC && !readC:
		init = "D accumulates in place (C is D, beta = 1): D += A·B per K tile"
	case p.useC:
		init = "D = C (beta = 1), then D += A·B per K tile"
	}
	aRegs, bRegs := nRM*nKHi, nKHi
	perThread := func(shape []int64) int64 { return extProd(itersOf(shape)) }
	plan := []dispatch.PlanItem{
		{Key: "instruction", Value: p.instruction()},
		{Key: "shape", Value: fmt.Sprintf("%s, %s × %s → %s; gemm M×N×K = %d×%d×%d", shape, inst.dtype[0], inst.dtype[1], inst.dtype[3], p.M, p.N, p.K)},
		{Key: "mma per warp", Value: fmt.Sprintf("%d = %d×%d output tiles × %d K steps", count, mTiles, nTiles, kTiles)},
		{Key: "A fragment", Value: fmt.Sprintf("%d b32 registers per mma (%d %s per thread in all)", aRegs, perThread(p.aShape), inst.dtype[0]),
			Fields: []dispatch.PlanItem{{Key: "register layout", Value: p.aReg.String()}, {Key: "view", Value: "[M tile, K tile, rM, kHi, k_pack] " + pyList(p.aShape)}}},
		{Key: "B fragment", Value: fmt.Sprintf("%d b32 registers per mma (%d %s per thread in all)", bRegs, perThread(p.bShape), inst.dtype[1]),
			Fields: []dispatch.PlanItem{{Key: "register layout", Value: p.bReg.String()}, {Key: "view", Value: "[K tile, N tile, kHi, k_pack] " + pyList(p.bShape)}}},
		{Key: "C/D accumulator", Value: fmt.Sprintf("%d f32 registers per mma (%d %s per thread in all)", nRM*nRN, perThread(p.dShape), inst.dtype[3]),
			Fields: []dispatch.PlanItem{{Key: "D register layout", Value: p.dReg.String()}, {Key: "C register layout", Value: p.cReg.String()},
				{Key: "view", Value: "[M tile, N tile, rM, rN] " + pyList(p.dShape)}}},
		{Key: "fragment map", Value: "lane = 4g + t; C/D: M = g + 8rM, N = 2t + rN; A: K = 2t + p + 8kHi; B: N = g"},
		{Key: "accumulation", Value: init},
	}
	for i, name := range operandNames {
		if p.syms[i] != nil {
			plan = append(plan, dispatch.PlanItem{Key: name + " register offset",
				Value: dispatch.ExprText(ir.SimplifyIndex(p.syms[i])) + " (the region's start is symbolic)"})
		}
	}
	return &dispatch.Result{
		Body:      &ir.Block{Stmts: stmts, Span: span},
		Threads:   c.ThreadCnt(),
		Partition: p.dReg.String(),
		Notes:     []string{fmt.Sprintf("%d × %s", count, p.instruction())},
		Plan:      plan,
	}
}

func itersOf(shape []int64) []layout.Iter {
	its := make([]layout.Iter, len(shape))
	for i, s := range shape {
		its[i] = layout.Iter{Extent: s, Stride: 1, Axis: layout.M}
	}
	return its
}

// mmaChain027 is the instruction as 0.27.0.post1 writes it:
// T.ptx["mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>"](d regs, a words,
// b words, d regs) over register values, the A/B fragments read as b32
// words through a uint32 view of their registers (a_local.view("uint32")),
// where 0.25 passed pointers (T.ptx.mma).
func mmaChain027(shape string, dt [4]string, dP, aP, bP []ir.Expr, span source.Span) *ir.Call {
	elem := map[string]string{"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
	op := fmt.Sprintf("ptx.mma.sync.aligned.%s.row.col.%s.%s.%s.%s", shape, elem[dt[3]], elem[dt[0]], elem[dt[1]], elem[dt[2]])
	reg := func(e ir.Expr) ir.Expr {
		a := e.(*ir.AddressOf)
		return &ir.Load{Buf: a.Buf, Indices: a.Indices, Span: span}
	}
	var args []ir.Expr
	for _, x := range dP {
		args = append(args, reg(x))
	}
	args = append(args, aP...)
	args = append(args, bP...)
	for _, x := range dP {
		args = append(args, reg(x))
	}
	return &ir.Call{Op: op, Args: args, Span: span}
}

// wordView is b.view("uint32"): b's registers as 32-bit words.
func wordView(b *ir.Buffer) *ir.Buffer {
	n := int64(1)
	for _, x := range b.Shape {
		n *= x
	}
	n = n * int64(b.Dtype.Bits) / 32
	return &ir.Buffer{Name: b.Name + "_words", Data: b.Data, Shape: []int64{n}, Dtype: ir.DataType{Code: ir.UInt, Bits: 32},
		Scope: b.Scope, Layout: layout.RowMajor(n), Base: b, Kind: ir.DeclBuffer, Span: b.Span}
}

// divExact is e / k for an e whose every term is a multiple of k (a
// symbolic region start in elements, k elements a word).
func divExact(e ir.Expr, k int64) ir.Expr {
	if c, ok := ir.ConstInt(e); ok && c%k == 0 {
		return common.Cst(c / k)
	}
	if b, ok := e.(*ir.Binary); ok {
		switch b.Op {
		case ir.Add:
			return ir.AddE(divExact(b.A, k), divExact(b.B, k))
		case ir.Mul:
			if c, ok := ir.ConstInt(b.B); ok && c%k == 0 {
				return ir.MulE(b.A, common.Cst(c/k))
			}
			if c, ok := ir.ConstInt(b.A); ok && c%k == 0 {
				return ir.MulE(b.B, common.Cst(c/k))
			}
			if c, ok := ir.ConstInt(b.B); ok {
				if inner, ok := b.A.(*ir.Binary); ok && inner.Op == ir.Mul {
					return ir.MulE(divExact(inner, k), common.Cst(c))
				}
			}
		}
	}
	return ir.DivE(e, common.Cst(k))
}
