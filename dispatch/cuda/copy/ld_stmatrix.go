package copy

// copy/ldstmatrix: register <-> shared copies through PTX ldmatrix (shared
// to registers) and stmatrix (registers to shared), 8x8 b16 tiles.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy/
// ld_stmatrix.py at PRE abe2526b3e (= SEED). Rejects (predicate
// ldstmatrix_applicable, first failure only): non-cuda target, a scope
// other than warp/warpgroup/cta, narrowed scopes, invalid copies, and pairs
// other than local<->shared*. Declines in the emitter (TVM fail()) when the
// shared swizzle chunk is under 8 elements, either side has replicas, the
// register layout does not have exactly one lane axis out of
// {laneid, tid_in_wg, tx}, the thread count is not a multiple of 32, or no
// grouping [T/32, 8, 4, M/(2·num), num, 2] fits for num ∈ {4,2,1} — which
// is the case for every plain row-major register tile, so reg wins there.
//
// When it applies it emits, per m_outer step (unrolled), one
// ptx.ldmatrix / ptx.stmatrix (ir.OpLdmatrix / ir.OpStmatrix) with the
// lane's shared address (swizzled with the full formula; TVM's signed-stride
// fast path is not used here) and the first of its num register
// fragments. Deviation: the ir op takes one register pointer, so tilels
// accepts a grouping only when its num fragments are consecutive registers
// (TVM passes num pointers and takes the first fitting grouping, sorted
// first); when every fitting grouping is gapped it declines with its own
// reason ("register fragments [...] are not consecutive").
//
// Symbolic region starts (a loop variable in a slice) are sliced at 0 and
// add their memory-axis offset to the lane's shared address (before the
// swizzle) or to the register pointer, as TVM's layout.apply carries the
// symbolic slice offset; a start tilels cannot slice (symOffsets) declines
// like the other copy variants.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var Ldstmatrix = dispatch.Variant{
	Op: "copy", Name: "ldstmatrix", Target: "cuda", Priority: 10,
	When: []dispatch.Pred{{Name: "ldstmatrix_applicable", Check: isLdstmatrix}},
	Emit: emitLdstmatrix,
}

func isLdstmatrix(c *dispatch.Call) *dispatch.Decline {
	return common.FirstFailure(c, ldstmatrixChecks...)
}

// ldstmatrixChecks is built once (see gmemSmemChecks).
var ldstmatrixChecks = []common.Check{
	common.CudaTarget,
	common.ExecScopeIn(" (need warp, warpgroup, or cta)", "warp", "warpgroup", "cta"),
	common.AllThreadsActive,
	common.IsValidCopy,
	common.ScopeAllowed(common.RegSmemPairs),
}

var validRLaneAxes = []string{"laneid", "tid_in_wg", "tx"}

func itersText(its []layout.Iter) string {
	q := make([]string, len(its))
	for i, it := range its {
		q[i] = it.String()
	}
	return "[" + strings.Join(q, ", ") + "]"
}

type ldstChoice struct {
	r, s       *layout.TileLayout
	rSep, sSep []int
	trans      bool
	p, num     int64
}

func emitLdstmatrix(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	ri := common.RegSide(c)
	rg, ok1 := common.ConstRegion(c, ri)
	sg, ok2 := common.ConstRegion(c, 1-ri)
	if !ok1 || !ok2 {
		return nil, c.Declinef(c.Span(), "non-constant region (tilels needs constant region bounds)")
	}
	for i, g := range [2]common.Region{rg, sg} {
		if _, ok := common.SymOffsets(g); !ok {
			arg := ri
			if i == 1 {
				arg = 1 - ri
			}
			return nil, c.Declinef(c.ArgSpan(arg), "non-constant region start %s: tilels cannot slice this layout at a symbolic offset", dispatch.ExprText(g.R))
		}
	}
	rSym, sSym := common.MemSym(rg), common.MemSym(sg)
	ld := ri == 0 // smem -> reg
	span := c.Span()
	rsl, _ := common.SliceLayout(rg)
	ssl, _ := common.SliceLayout(sg)
	if rsl == nil || ssl == nil {
		dispatch.Raise("AttributeError", "'NoneType' object has no attribute 'canonicalize'")
	}
	r := common.Canon(common.MustTile(rsl))
	sw := layout.BareSwizzle(sg.Lay)
	if sw != nil && sw.PerElement < 3 {
		return nil, c.Declinef(c.ArgSpan(1-ri), "swizzle per_element=%d < 3 incompatible with .b16 ldmatrix/stmatrix (need 8-fp16 chunk integrity)", sw.PerElement)
	}
	s := layout.StripSwizzleToTile(layout.Canonicalize(ssl, true), sg.Exts)
	if len(r.Replica) != 0 {
		return nil, c.Declinef(c.ArgSpan(ri), "R layout has replica %s; ldstmatrix requires no replica", itersText(r.Replica))
	}
	if len(s.Replica) != 0 {
		return nil, c.Declinef(c.ArgSpan(1-ri), "S layout has replica %s; ldstmatrix requires no replica", itersText(s.Replica))
	}
	var axes []string
	for _, it := range r.Shard {
		if it.Axis.IsThread() && !slices.Contains(axes, it.Axis.Name) {
			axes = append(axes, it.Axis.Name)
		}
	}
	sort.Strings(axes)
	if len(axes) != 1 {
		return nil, c.Declinef(c.ArgSpan(ri), "R must have exactly one thread axis name; got %s", common.PyStrList(axes))
	}
	lane := axes[0]
	if !slices.Contains(validRLaneAxes, lane) {
		return nil, c.Declinef(c.ArgSpan(ri), "R thread axis %s not in %s", common.PyRepr(lane), common.PyStrList(validRLaneAxes))
	}
	sGrp, sSeps, err := layout.Group(s, r.Extents())
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	perm := make([]int, len(r.Shard))
	for i := range perm {
		perm[i] = i
	}
	sortStable(perm, func(a, b int) bool {
		ta, tb := r.Shard[a].Axis.IsThread(), r.Shard[b].Axis.IsThread()
		if ta != tb {
			return ta
		}
		return r.Shard[a].Stride > r.Shard[b].Stride
	})
	r = common.Canon(layout.PermuteDims(r, perm))
	s = common.Canon(layout.PermuteByGroups(sGrp, sSeps, perm))

	tTotal, mTotal := int64(1), int64(1)
	for _, it := range r.Shard {
		if it.Axis.IsThread() {
			tTotal *= it.Extent
		} else {
			mTotal *= it.Extent
		}
	}
	if tTotal%32 != 0 {
		return nil, c.Declinef(c.ArgSpan(ri), "R thread section total %d not divisible by 32", tTotal)
	}
	rSort, sSort := sortedLdst(r, s, tTotal, mTotal)
	var ch *ldstChoice
	var gapped []int64
	// accept keeps a fitting grouping whose num register fragments are
	// consecutive (the ir op takes one register pointer); TVM would take
	// the first fitting grouping, sorted first.
	accept := func(cand *ldstChoice) bool {
		if cand == nil {
			return false
		}
		if c.Target.Release >= release.R026 {
			// 0.26+ hand the instruction num separate registers.
			ch = cand
			return true
		}
		if hs := gappedHandles(cand); hs != nil {
			if gapped == nil {
				gapped = hs
			}
			return false
		}
		ch = cand
		return true
	}
	for _, num := range []int64{4, 2, 1} {
		if mTotal%(num*2) != 0 {
			continue
		}
		if rSort != nil && accept(tryNum(rSort, sSort, num, tTotal, mTotal)) {
			break
		}
		if accept(tryNum(r, s, num, tTotal, mTotal)) {
			break
		}
	}
	if ch == nil && gapped != nil {
		return nil, c.Declinef(c.ArgSpan(ri), "register fragments %v are not consecutive (tilels emits one register pointer per ldmatrix)", gapped)
	}
	if ch == nil {
		return nil, c.Declinef(c.Span(), "ldstmatrix layout doesn't fit any num ∈ {4,2,1}")
	}

	if c.Target.Release >= release.R027 {
		ch = ch.numByRStride()
	}
	shape := []int64{tTotal / 32, 8, 4, mTotal / (ch.num * 2), ch.num, 2}
	mOuter := shape[3]
	laneIdx := c.AxisDecl("laneid")
	var warpIdx ir.Expr = common.Cst(0)
	switch lane {
	case "tid_in_wg":
		warpIdx = c.AxisDecl("wid_in_wg")
	case "tx":
		warpIdx = c.AxisDecl("warpid")
	}
	var seg4 ir.Expr = common.Cst(0)
	if ch.num > 1 {
		seg4 = ir.DivE(laneIdx, common.Cst(8))
	}
	op := ir.OpStmatrix
	if ld {
		op = ir.OpLdmatrix
	}
	trans := int64(0)
	if ch.trans {
		trans = 1
	}
	var stmts []ir.Stmt
	var words *ir.Buffer // 0.26+: the fragment's uint32 view
	if c.Target.Release >= release.R026 {
		words = &ir.Buffer{Name: rg.Buf.Name + "_words", Dtype: ir.UInt32, Scope: "local", Kind: ir.DeclBuffer,
			Base: rg.Buf, Span: span}
		words.Shape = []int64{max(1, rg.Buf.NumElements()/2)}
		words.Layout = layout.RowMajor(words.Shape...)
		words.Data = rg.Buf.Data
		stmts = append(stmts, &ir.Decl{Buf: words, Span: span})
	}
	for mm := range mOuter {
		tileOff := common.ApplyExpr(ch.s, []ir.Expr{warpIdx, common.Cst(0), common.Cst(0), common.Cst(mm), seg4, common.Cst(0)}, shape)
		if sSym != nil {
			tileOff = ir.AddE(tileOff, sSym)
		}
		logical := ir.AddE(tileOff, ir.MulE(ir.ModE(laneIdx, common.Cst(8)), common.Cst(ch.p)))
		if sw != nil {
			logical = common.SwizzleExpr(sw, logical)
		}
		handles := fragmentHandlesAt(ch, mm)
		if words != nil {
			stmts = append(stmts, matrixChain(ld, ch, words, handles, rSym, common.PtrOff(sg.Buf, logical, span), span))
			continue
		}
		var reg ir.Expr = common.Cst(handles[0])
		if rSym != nil {
			reg = ir.AddE(reg, rSym)
		}
		call := &ir.Call{Op: op, Args: []ir.Expr{common.Cst(ch.num), common.Cst(trans), common.PtrOff(sg.Buf, logical, span),
			common.PtrOff(rg.Buf, reg, span)}, Span: span}
		stmts = append(stmts, &ir.Evaluate{X: call, Span: span})
	}
	name := "stmatrix"
	if ld {
		name = "ldmatrix"
	}
	return &dispatch.Result{
		Body: &ir.Block{Stmts: stmts, Span: span}, Vec: 8, VecBits: 128, Outer: mOuter, Threads: c.ThreadCnt(),
		Partition: ch.r.String() + " <-> " + ch.s.String(),
		Notes:     []string{fmt.Sprintf("%s.x%d trans=%v row stride %d", name, ch.num, ch.trans, ch.p)},
	}, nil
}

// sortedLdst is TVM's "sorted" variant: the m_outer iters re-ordered by
// descending S stride (nil when it does not apply or is the identity).
func sortedLdst(r, s *layout.TileLayout, tTotal, mTotal int64) (*layout.TileLayout, *layout.TileLayout) {
	if mTotal%2 != 0 {
		return nil, nil
	}
	gs5 := []int64{tTotal / 32, 8, 4, mTotal / 2, 2}
	rg5, rsep5, ok1 := layout.TryGroup(r, gs5)
	sg5, ssep5, ok2 := layout.TryGroup(s, gs5)
	if !ok1 || !ok2 {
		return nil, nil
	}
	rM := rg5.Shard[rsep5[3]:rsep5[4]]
	sM := sg5.Shard[ssep5[3]:ssep5[4]]
	sExt := make([]int64, len(sM))
	for i, it := range sM {
		sExt[i] = it.Extent
	}
	rMg, rMseps, ok := layout.TryGroup(layout.NewTile(rM, nil, nil), sExt)
	if !ok {
		return nil, nil
	}
	perm := make([]int, len(sM))
	for i := range perm {
		perm[i] = i
	}
	sortStable(perm, func(a, b int) bool { return sM[a].Stride > sM[b].Stride })
	identity := true
	for i, p := range perm {
		identity = identity && i == p
	}
	if identity {
		return nil, nil
	}
	rMp := layout.PermuteByGroups(rMg, rMseps, perm)
	sMp := make([]layout.Iter, len(perm))
	for i, p := range perm {
		sMp[i] = sM[p]
	}
	cat := func(a, b, c []layout.Iter) []layout.Iter {
		return append(append(append([]layout.Iter{}, a...), b...), c...)
	}
	rs := layout.NewTile(cat(rg5.Shard[:rsep5[3]], rMp.Shard, rg5.Shard[rsep5[4]:]), nil, rg5.Offset)
	ss := layout.NewTile(cat(sg5.Shard[:ssep5[3]], sMp, sg5.Shard[ssep5[4]:]), nil, sg5.Offset)
	return rs, ss
}

// tryNum is TVM _try_num.
func tryNum(rIn, sIn *layout.TileLayout, num, tTotal, mTotal int64) *ldstChoice {
	gs := []int64{tTotal / 32, 8, 4, mTotal / (num * 2), num, 2}
	rg, rsep, ok1 := layout.TryGroup(rIn, gs)
	sg, ssep, ok2 := layout.TryGroup(sIn, gs)
	if !ok1 || !ok2 {
		return nil
	}
	if tTotal > 32 {
		seg0 := rg.Shard[rsep[0]:rsep[1]]
		if len(seg0) != 1 || seg0[0].Stride != 32 {
			return nil
		}
	}
	strs := func(l *layout.TileLayout, seps []int) (s8, s4, s2 int64, numIters []layout.Iter, ok bool) {
		for _, i := range []int{1, 2, 5} {
			if seps[i+1]-seps[i] != 1 {
				return 0, 0, 0, nil, false
			}
		}
		return l.Shard[seps[1]].Stride, l.Shard[seps[2]].Stride, l.Shard[seps[5]].Stride, l.Shard[seps[4]:seps[5]], true
	}
	r8, r4, r2, _, okr := strs(rg, rsep)
	s8, s4, s2, sNum, oks := strs(sg, ssep)
	if !okr || !oks || r8 != 4 || r4 != 1 || r2 != 1 {
		return nil
	}
	if num > 1 {
		for _, it := range sNum {
			if it.Stride <= 0 || it.Stride%8 != 0 {
				return nil
			}
		}
	}
	for _, it := range sg.Shard[ssep[3]:ssep[4]] {
		if it.Extent != 1 && it.Stride%8 != 0 {
			return nil
		}
	}
	ch := &ldstChoice{r: rg, s: sg, rSep: rsep, sSep: ssep, num: num}
	switch {
	case s4 == 2 && s2 == 1 && s8 > 0 && s8%8 == 0:
		ch.p = s8
	case s8 == 1 && s2 > 0 && s2%8 == 0 && s4 == 2*s2:
		ch.trans, ch.p = true, s2
	default:
		return nil
	}
	return ch
}

func (ch *ldstChoice) shape() []int64 {
	t, m := int64(1), int64(1)
	for _, it := range ch.r.Shard {
		if it.Axis.IsThread() {
			t *= it.Extent
		} else {
			m *= it.Extent
		}
	}
	return []int64{t / 32, 8, 4, m / (ch.num * 2), ch.num, 2}
}

// fragmentHandlesAt is the register element index of each of the num
// fragments of step mm (TVM r.apply(0, 0, 0, mm, i, 0)).
func fragmentHandlesAt(ch *ldstChoice, mm int64) []int64 {
	shape := ch.shape()
	hs := make([]int64, ch.num)
	apply := layout.ShapeApplier(ch.r, shape, layout.M)
	for i := range ch.num {
		hs[i] = apply([]int64{0, 0, 0, mm, i, 0})
	}
	return hs
}

// gappedHandles returns the handles of the first step whose fragments are
// not consecutive registers (2 b16 elements apart), or nil.
func gappedHandles(ch *ldstChoice) []int64 {
	for mm := range ch.shape()[3] {
		hs := fragmentHandlesAt(ch, mm)
		for i := 1; i < len(hs); i++ {
			if hs[i] != hs[0]+2*int64(i) {
				return hs
			}
		}
	}
	return nil
}

// numByRStride is 0.27's reordering of the num segment (seg 4) by
// descending R stride, R and S in lockstep: the fragment words of one
// instruction then come in R's word order (no register shuffles), the R↔S
// pairing unchanged.
func (ch *ldstChoice) numByRStride() *ldstChoice {
	rNum := ch.r.Shard[ch.rSep[4]:ch.rSep[5]]
	sNum := ch.s.Shard[ch.sSep[4]:ch.sSep[5]]
	if len(rNum) < 2 || len(sNum) != len(rNum) {
		return ch
	}
	order := make([]int, len(rNum))
	for i := range order {
		order[i] = i
	}
	sortStable(order, func(a, b int) bool { return rNum[a].Stride > rNum[b].Stride })
	if slices.IsSorted(order) {
		return ch
	}
	re := func(l *layout.TileLayout, seps []int, seg []layout.Iter) *layout.TileLayout {
		its := append([]layout.Iter{}, l.Shard...)
		for k, i := range order {
			its[seps[4]+k] = seg[i]
		}
		return layout.NewTile(its, l.Replica, l.Offset)
	}
	out := *ch
	out.r, out.s = re(ch.r, ch.rSep, rNum), re(ch.s, ch.sSep, sNum)
	return &out
}

// matrixChain is 0.26+'s T.ptx["ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16"]
// (words..., smem) or the stmatrix twin (smem, words...): the fragment's
// b16 registers through its uint32 view, two elements a word.
func matrixChain(ld bool, ch *ldstChoice, words *ir.Buffer, handles []int64, rSym ir.Expr, smem ir.Expr, span source.Span) ir.Stmt {
	kind := "stmatrix"
	if ld {
		kind = "ldmatrix"
	}
	trans := ""
	if ch.trans {
		trans = ".trans"
	}
	op := fmt.Sprintf("ptx.%s.sync.aligned.m8n8.x%d%s.shared.b16", kind, ch.num, trans)
	regs := make([]ir.Expr, len(handles))
	for i, h := range handles {
		var e ir.Expr = common.Cst(h)
		if rSym != nil {
			e = ir.AddE(e, rSym)
		}
		regs[i] = &ir.Load{Buf: words, Indices: []ir.Expr{ir.SimplifyIndex(ir.DivE(e, common.Cst(2)))}, Span: span}
	}
	if ld {
		return ptxLd(op[len("ptx."):], regs, smem, span)
	}
	return ptxSt(op[len("ptx."):], smem, regs, span)
}
