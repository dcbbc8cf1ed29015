package copyasync

// The tcgen05.cp planner of apache-tvm 0.26.0 (and 0.27.0.post1):
// copy_async/tcgen05_cp.py's generic planner for every PTX shape.
//
//	shape      multicast                   t lane pattern          t replica
//	128x256b   (none)                      (128, 1@TLane)          —
//	4x256b     (none)                      (4, 32@TLane)           —
//	128x128b   (none)                      (128, 1@TLane)          —
//	64x128b    warpx2::02_13 (required)    (64, 1@TLane)           (2, 64@TLane)
//	64x128b    warpx2::01_23 (required)    (2,32):(64,1)@TLane     (2, 32@TLane)
//	32x128b    warpx4 (required)           (32, 1@TLane)           (4, 32@TLane)
//
// A `shape=` config forces one (with `multicast=` where the shape has two);
// without it the candidates are planned in the order above until one
// validates, and the error lists every candidate's reason. The plan is the
// 0.25 one generalized: the layouts group as (atom_rows, middle,
// elem_per_atom); the TMEM rows must follow the shape's lane pattern;
// shared rows form (atom_rows/8, 8) core-matrix groups (SBO, atom width),
// or one 4-row group for 4x256b (SBO 0); a 256-bit row is two 16-byte units
// (LBO their stride when unswizzled); the TMEM column offset must be
// 128-bit aligned and a TLane offset goes into the address's lane half
// (<< 16); middle iters may step TMEM lanes. The swizzle must be the mma
// atom family (per_element for 16 bytes, atom_len 3, swizzle_inner).
//
// Emission (copy_smem_tmem_impl): the descriptor template is encoded once
// at shared address 0 (LBO 0 for 128-bit atoms) and every cp patches its
// 14-bit start field with cvta(&smem[0] + off*16) >> 4.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// cpShapeMulticasts is _CP_SHAPE_MULTICASTS (in the reference's sorted key
// order for its texts).
var cpShapeMulticasts = map[string][]string{
	"128x256b": {""}, "4x256b": {""}, "128x128b": {""},
	"64x128b": {"warpx2::02_13", "warpx2::01_23"}, "32x128b": {"warpx4"},
}

// cpShapeCandidates is _CP_SHAPE_CANDIDATES: widest atom first.
var cpShapeCandidates = [][2]string{
	{"128x256b", ""}, {"4x256b", ""}, {"128x128b", ""},
	{"64x128b", "warpx2::02_13"}, {"64x128b", "warpx2::01_23"}, {"32x128b", "warpx4"},
}

// cpShapeDims is _shape_dims: (atom_rows, atom_bits) of "<rows>x<bits>b".
func cpShapeDims(shape string) (int64, int64) {
	var r, b int64
	fmt.Sscanf(shape, "%dx%db", &r, &b)
	return r, b
}

// cpLaneReplica is _cp_lane_replica_pattern: (extent, stride) on TLane.
func cpLaneReplica(shape, mc string) (lane, rep [][2]int64) {
	rows, _ := cpShapeDims(shape)
	switch mc {
	case "":
		if rows == 4 {
			return [][2]int64{{4, 32}}, nil
		}
		return [][2]int64{{rows, 1}}, nil
	case "warpx4":
		return [][2]int64{{32, 1}}, [][2]int64{{4, 32}}
	case "warpx2::02_13":
		return [][2]int64{{64, 1}}, [][2]int64{{2, 64}}
	case "warpx2::01_23":
		return [][2]int64{{2, 64}, {32, 1}}, [][2]int64{{2, 32}}
	}
	valueErr("unknown tcgen05.cp multicast %s", pyStrRepr(mc))
	return nil, nil
}

func pyStrRepr(s string) string { return "'" + s + "'" }

func pyStrList(xs []string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = pyStrRepr(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func tlaneListText(p [][2]int64) string {
	parts := make([]string, len(p))
	for i, x := range p {
		parts[i] = fmt.Sprintf("'(%d, %d@TLane)'", x[0], x[1])
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func shapeLabel(shape, mc string) string {
	if mc == "" {
		return shape
	}
	return shape + "." + mc
}

// validSmemTmemCopy026 is 0.26's _validate_smem_tmem_copy: a bare boolean
// (the row names only the predicate).
func validSmemTmemCopy026(c *dispatch.Call) *dispatch.Decline {
	src, dst := c.Src().Buf, c.Dst().Buf
	if common.MatchScope(src.Scope, "shared*") && dst.Scope == "tmem" && src.Layout != nil && dst.Layout != nil &&
		src.Dtype.Bits == dst.Dtype.Bits && dst.AllocatedAddr != nil {
		return nil
	}
	return c.Decline(c.Span(), "")
}

// resolveCpShape is _resolve_cp_shape.
func resolveCpShape(c *dispatch.Call, shapeV ir.Expr) (string, string) {
	shape := exprString(shapeV)
	allowed, ok := cpShapeMulticasts[shape]
	if !ok {
		keys := make([]string, 0, len(cpShapeMulticasts))
		for k := range cpShapeMulticasts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		valueErr("unknown tcgen05.cp shape %s; expected one of %s", pyStrRepr(shape), pyStrList(keys))
	}
	mcV, has := c.Config("multicast")
	if !has || mcV == nil {
		if len(allowed) == 1 {
			return shape, allowed[0]
		}
		valueErr("tcgen05.cp shape %s requires an explicit multicast config; choose one of %s", pyStrRepr(shape), pyStrList(allowed))
	}
	mc := exprString(mcV)
	if !slices.Contains(allowed, mc) {
		valueErr("illegal multicast %s for tcgen05.cp shape %s; allowed: %s", pyStrRepr(mc), pyStrRepr(shape), pyStrList(allowed))
	}
	return shape, mc
}

func exprString(e ir.Expr) string {
	if s, ok := e.(*ir.StringImm); ok {
		return s.Value
	}
	return strings.Trim(dispatch.ExprText(e), `"'`)
}

// buildCpPlan026 is 0.26's _build_plan.
func buildCpPlan026(c *dispatch.Call) *cpPlan {
	if v, ok := c.Config("shape"); ok && v != nil {
		shape, mc := resolveCpShape(c, v)
		return planForShape026(c, shape, mc)
	}
	mcCfg, hasMC := c.Config("multicast")
	var errs []string
	for _, cand := range cpShapeCandidates {
		if hasMC && mcCfg != nil && exprString(mcCfg) != cand[1] {
			continue
		}
		p, err := tryPlan026(c, cand[0], cand[1])
		if err == "" {
			return p
		}
		errs = append(errs, shapeLabel(cand[0], cand[1])+": "+err)
	}
	valueErr("no tcgen05.cp shape fits the given layouts; candidates rejected:\n  %s", strings.Join(errs, "\n  "))
	return nil
}

// tryPlan026 runs planForShape026, turning its ValueError into the reason.
func tryPlan026(c *dispatch.Call, shape, mc string) (p *cpPlan, reason string) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*dispatch.Raised); ok && e.Type == "ValueError" {
				p, reason = nil, e.Msg
				return
			}
			panic(r)
		}
	}()
	return planForShape026(c, shape, mc), ""
}

// planForShape026 is _plan_for_shape (steps A..I for one shape).
func planForShape026(c *dispatch.Call, shape, mc string) *cpPlan {
	dst, _ := common.ConstRegion(c, 0)
	src, _ := common.ConstRegion(c, 1)
	if len(dst.Exts) != len(dst.R.Extent) || len(src.Exts) != len(src.R.Extent) {
		dispatch.Raise("TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'PrimExpr'")
	}
	sBuf, tBuf := src.Buf, dst.Buf
	bits := int64(sBuf.Dtype.Bits)
	if bits == 0 || bits > 32 {
		dispatch.Raise("ZeroDivisionError", "integer division or modulo by zero")
	}
	epb128, epb32 := 128/bits, 32/bits
	atomRows, atomBits := cpShapeDims(shape)
	epa := atomBits / bits

	var s *layout.TileLayout
	var sw0 *layout.ComposeLayout
	srcAt, symM := src, ir.Expr(nil)
	if !src.Static {
		srcAt, symM = atZero(src, layout.M)
	}
	dstAt, symCol := dst, ir.Expr(nil)
	if !dst.Static {
		dstAt, symCol = atZero(dst, layout.TCol)
	}
	switch l := sliceAt(srcAt).(type) {
	case *layout.ComposeLayout:
		sw0, s = l, l.Tile
	case *layout.TileLayout:
		s = l
	}
	t, ok := sliceAt(dstAt).(*layout.TileLayout)
	if !ok {
		valueErr("tmem slice is not a TileLayout")
	}

	// B: replica per (shape, multicast).
	lanePat, repPat := cpLaneReplica(shape, mc)
	repOK := len(t.Replica) == len(repPat)
	for i := 0; repOK && i < len(repPat); i++ {
		r := t.Replica[i]
		repOK = r.Extent == repPat[i][0] && r.Stride == repPat[i][1] && r.Axis == layout.TLane
	}
	if !repOK {
		parts := make([]string, len(t.Replica))
		for i, r := range t.Replica {
			parts[i] = fmt.Sprintf("(%d, %d, '%s')", r.Extent, r.Stride, axisRepr(r.Axis))
		}
		valueErr("replica mismatch for tcgen05.cp %s: expected %s, got t.replica = [%s]", shapeLabel(shape, mc), tlaneListText(repPat), strings.Join(parts, ", "))
	}

	// C, D: permute (TLane first, then TCol by descending stride).
	perm := make([]int, len(t.Shard))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		ka, kb := 1, 1
		if t.Shard[a].Axis == layout.TLane {
			ka = 0
		}
		if t.Shard[b].Axis == layout.TLane {
			kb = 0
		}
		if ka != kb {
			return ka - kb
		}
		sa, sb := -t.Shard[a].Stride, -t.Shard[b].Stride
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
	sGrp, seps := groupOrRaise(s, t.Extents())
	sP := layout.CanonicalTile(layout.PermuteByGroups(sGrp, seps, perm))
	tP := layout.CanonicalTile(layout.PermuteDims(t, perm))

	// E: isolate broadcast.
	seqT, keepT := splitByZero(tP)
	seqS, keepS := splitByZero(sP)
	if !slices.Equal(seqT, seqS) {
		valueErr("isolate split mismatch: t=%s s=%s", pyIntList(seqT), pyIntList(seqS))
	}
	sIso := layout.NewTile(keepS, sP.Replica, sP.Offset)
	tIso := layout.NewTile(keepT, tP.Replica, tP.Offset)

	// F: group into (atom_rows, middle, elem_per_atom).
	atomElems := atomRows * epa
	for _, side := range []struct {
		n     string
		total int64
	}{{"t", prodIters(tIso.Shard)}, {"s", prodIters(sIso.Shard)}} {
		if side.total < atomElems || side.total%atomElems != 0 {
			valueErr("%s region (%d elems) is not a multiple of one %s atom (%dx%d elems)", side.n, side.total, shape, atomRows, epa)
		}
	}
	nMidT, nMidS := prodIters(tIso.Shard)/atomElems, prodIters(sIso.Shard)/atomElems
	tGrp, ts := groupOrRaise(tIso, []int64{atomRows, nMidT, epa})
	sGrp2, ss := groupOrRaise(sIso, []int64{atomRows, nMidS, epa})
	tLane := canonSeg(tGrp.Shard[ts[0]:ts[1]])
	tMid := canonSeg(tGrp.Shard[ts[1]:ts[2]])
	tCol := canonSeg(tGrp.Shard[ts[2]:ts[3]])
	sLane := slices.Clone(sGrp2.Shard[ss[0]:ss[1]])
	sMid := canonSeg(sGrp2.Shard[ss[1]:ss[2]])
	sCol := canonSeg(sGrp2.Shard[ss[2]:ss[3]])
	tMid, sMid = alignMiddles(tMid, sMid)

	// F.1: lanes and columns.
	laneOK := len(tLane) == len(lanePat)
	for i := 0; laneOK && i < len(lanePat); i++ {
		laneOK = tLane[i].Extent == lanePat[i][0] && tLane[i].Stride == lanePat[i][1] && tLane[i].Axis == layout.TLane
	}
	if !laneOK {
		valueErr("t_lane for tcgen05.cp %s must canonicalize to %s, got %s", shapeLabel(shape, mc), tlaneListText(lanePat), iterListRepr(tLane))
	}
	if len(tCol) != 1 {
		valueErr("t_col must canonicalize to single iter, got %s", iterListRepr(tCol))
	}
	if ci := tCol[0]; ci.Extent != epa || ci.Stride != 1 || ci.Axis != layout.TCol {
		valueErr("t_col must be (%d, 1@TCol), got %s", epa, iterRepr(ci))
	}

	// F.2: shared rows -> SBO and the atom width.
	var sdoByte, atomK int64
	rowsPerGroup := min(atomRows, 8)
	nGroups := atomRows / rowsPerGroup
	if nGroups == 1 {
		blk := canonSeg(sLane)
		if len(blk) != 1 {
			valueErr("s_lane must canonicalize to a single row iter, got %s", iterListRepr(blk))
		}
		atomK = pyFloorDiv(blk[0].Stride*bits, 8)
	} else {
		lg, lseps := groupOrRaise(layout.NewTile(sLane, nil, nil), []int64{nGroups, rowsPerGroup})
		bg, b8 := lg.Shard[lseps[0]:lseps[1]], lg.Shard[lseps[1]:lseps[2]]
		if len(bg) != 1 || len(b8) != 1 {
			valueErr("s_lane must group into single iter per (%d, %d) block: blk_%d=%s, blk_8=%s", nGroups, rowsPerGroup, nGroups, iterListRepr(bg), iterListRepr(b8))
		}
		sdoByte = pyFloorDiv(bg[0].Stride*bits, 8)
		atomK = pyFloorDiv(b8[0].Stride*bits, 8)
		if pyMod(sdoByte, 16) != 0 {
			valueErr("s_lane row-group stride %dB not 16B-aligned (descriptor SBO is encoded in 16B units)", sdoByte)
		}
	}
	sw, ok := map[int64]int64{16: 0, 32: 1, 64: 2, 128: 3}[atomK]
	if !ok {
		valueErr("atom_K_byte %d not in {16,32,64,128}", atomK)
	}
	var swFromLayout int64
	if sw0 != nil {
		swFromLayout = int64(sw0.SwizzleLen)
	}
	if swFromLayout != sw {
		valueErr("swizzle mode mismatch: s_layout swizzle_len=%d but atom_K_byte=%d implies sw=%d", swFromLayout, atomK, sw)
	}
	if sw0 != nil {
		wantPE := int64(0)
		for x := epb128; x > 1; x >>= 1 {
			wantPE++
		}
		if int64(sw0.PerElement) != wantPE || sw0.AtomLen != 3 {
			valueErr("swizzle family mismatch: expected canonical mma atom ComposeLayout(per_element=%d, swizzle_len=%d, atom_len=3); got per_element=%d, atom_len=%d",
				wantPE, sw, sw0.PerElement, sw0.AtomLen)
		}
		if sw0.SwizzleLen > 0 && !sw0.SwizzleInner {
			valueErr("swizzle direction mismatch: the tcgen05.cp smem descriptor implements the swizzle_inner=True address permutation "+
				"(x ^ ((x & outer_mask) >> atom_len)); got a ComposeLayout with swizzle_inner=False (per_element=%d, swizzle_len=%d, atom_len=%d), "+
				"whose mirrored permutation would be silently mis-copied", sw0.PerElement, sw0.SwizzleLen, sw0.AtomLen)
		}
	}

	// F.3: one row's columns: one 16B unit (128b) or two (256b).
	var ldoField int64
	if atomBits == 128 {
		if len(sCol) != 1 {
			valueErr("s_col must canonicalize to single iter, got %s", iterListRepr(sCol))
		}
		if sci := sCol[0]; sci.Extent != epb128 || sci.Stride != 1 {
			valueErr("s_col must be (%d, 1, m), got %s", epb128, iterRepr(sci))
		}
	} else {
		cg, cseps := groupOrRaise(layout.NewTile(sCol, nil, nil), []int64{2, epb128})
		bu, be := cg.Shard[cseps[0]:cseps[1]], cg.Shard[cseps[1]:cseps[2]]
		if len(bu) != 1 || len(be) != 1 {
			valueErr("s_col must group into (2, %d) 16B units: units=%s, elems=%s", epb128, iterListRepr(bu), iterListRepr(be))
		}
		if be[0].Extent != epb128 || be[0].Stride != 1 {
			valueErr("s_col 16B unit must be (%d, 1, m), got %s", epb128, iterRepr(be[0]))
		}
		ldoByte := pyFloorDiv(bu[0].Stride*bits, 8)
		if pyMod(ldoByte, 16) != 0 {
			valueErr("s_col unit stride %dB not 16B-aligned", ldoByte)
		}
		if sw == 0 {
			ldoField = ldoByte / 16
		} else {
			if ldoByte != 16 {
				valueErr("swizzled %db atom requires the two 16B units adjacent in the linear layout, got stride %dB", atomBits, ldoByte)
			}
			ldoField = 1
		}
	}

	// G: alignments.
	tColOff := tIso.Offset[layout.TCol]
	if pyMod(tColOff, 4*epb32) != 0 {
		valueErr("t TCol offset %d not provably 128b-aligned", tColOff)
	}
	tLaneOff := tIso.Offset[layout.TLane]
	span := int64(1)
	for _, it := range append(slices.Clone(tP.Shard), tP.Replica...) {
		if it.Axis == layout.TLane {
			span += (it.Extent - 1) * it.Stride
		}
	}
	if tLaneOff+span > 128 {
		valueErr("t TLane offset %d overflows the 128-lane space (footprint spans %d lanes)", tLaneOff, span)
	}
	sOff := sIso.Offset[layout.M]
	alignElem, label := 16*8/bits, "16B"
	if sw != 0 {
		atomSize := 8 * atomK
		alignElem, label = atomSize*8/bits, fmt.Sprintf("atom=%dB", atomSize)
	}
	if pyMod(sOff, alignElem) != 0 {
		valueErr("s offset %d not provably aligned to %s (%d %s elements)", sOff, label, alignElem, sBuf.Dtype)
	}
	if symCol != nil && !provablyMultiple(symCol, 4*epb32) {
		valueErr("t TCol offset %s not provably 128b-aligned", bare(dispatch.ExprText(ir.AddE(symCol, common.Cst(tColOff)))))
	}
	if symM != nil && !provablyMultiple(symM, alignElem) {
		valueErr("s offset %s not provably aligned to %s (%d %s elements)", bare(dispatch.ExprText(ir.AddE(symM, common.Cst(sOff)))), label, alignElem, sBuf.Dtype)
	}

	// H: middle 1-1.
	if len(tMid) != len(sMid) {
		valueErr("t_middle iter count %d != s_middle %d (simple-mode requires 1-1)", len(tMid), len(sMid))
	}
	p := &cpPlan{swizzle: sw, atomKByte: atomK, sBuf: sBuf, tBuf: tBuf, total: 1, shape: shape, multicast: mc, ldoField: ldoField, v026: true}
	for i := range tMid {
		ti, si := tMid[i], sMid[i]
		if ti.Extent != si.Extent {
			valueErr("middle[%d] extent: t=%d s=%d", i, ti.Extent, si.Extent)
		}
		if ti.Extent == 1 {
			continue
		}
		var tStep int64
		switch ti.Axis {
		case layout.TCol:
			if pyMod(ti.Stride, epb32) != 0 {
				valueErr("t_middle[%d] stride %d elems not 32b-aligned (need multiple of %d)", i, ti.Stride, epb32)
			}
			tStep = ti.Stride / epb32
		case layout.TLane:
			tStep = ti.Stride << 16
		default:
			valueErr("middle[%d] t axis must be TCol or TLane, got %s", i, axisRepr(ti.Axis))
		}
		sStride := pyFloorDiv(si.Stride*bits, 8)
		if pyMod(sStride, 16) != 0 {
			valueErr("s_middle[%d] stride %dB not 16B-aligned", i, sStride)
		}
		p.middle = append(p.middle, cpMiddle{ti.Extent, sStride / 16, tStep})
		p.total *= ti.Extent
	}
	p.sdoField = pyFloorDiv(sdoByte, 16)
	p.initOff16B = pyFloorDiv(pyFloorDiv(sOff*bits, 8), 16)
	if symM != nil {
		if e, ok := scaleExact(symM, bits, 128); ok {
			p.symOff16B = e
		} else {
			p.symOff16B = ir.DivE(ir.MulE(symM, common.Cst(bits)), common.Cst(128))
		}
	}
	p.tCol0 = pyFloorDiv(tColOff, epb32) + tLaneOff*65536
	if symCol != nil {
		if e, ok := scaleExact(symCol, 1, epb32); ok {
			p.symCol = e
		} else {
			p.symCol = ir.DivE(symCol, common.Cst(epb32))
		}
	}
	p.ctaGroup = 1
	if v, ok := c.Config("cta_group"); ok && v != nil {
		g, isConst := ir.ConstInt(v)
		if !isConst {
			valueErr("cta_group must be a constant, got %s", dispatch.ExprText(v))
		}
		p.ctaGroup = g
	}
	return p
}

// cpDescAt026 is _cp_desc: the template descriptor with its start field
// set to cvta(&smem[0] + off16B*16) >> 4 (_desc_set_addr).
func cpDescAt026(desc ir.Expr, sBuf *ir.Buffer, off16B ir.Expr, sp source.Span) ir.Expr {
	u32 := ir.DataType{Code: ir.UInt, Bits: 32}
	u64 := ir.DataType{Code: ir.UInt, Bits: 64}
	zeros := make([]ir.Expr, len(sBuf.Shape))
	for i := range zeros {
		zeros[i] = common.Zero
	}
	base := &ir.AddressOf{Buf: sBuf, Indices: zeros, Span: sp}
	ptr := &ir.Call{Op: ir.OpPointerOffset, Args: []ir.Expr{base, ir.MulE(off16B, common.Cst(int64(128/sBuf.Dtype.Bits)))}, Type: ir.HandleT, Span: sp}
	cvta := &ir.Call{Op: "cuda.cvta_generic_to_shared", Args: []ir.Expr{ptr}, Type: u32, Span: sp}
	start := &ir.Cast{To: u64, X: &ir.Binary{Op: ir.BitAnd, A: &ir.Binary{Op: ir.Shr, A: cvta, B: &ir.IntImm{Value: 4, Type: u32, Span: sp}, Span: sp},
		B: &ir.IntImm{Value: 0x3FFF, Type: u32, Span: sp}, Span: sp}, Span: sp}
	mask := &ir.Call{Op: "bitwise_not", Args: []ir.Expr{&ir.IntImm{Value: 0x3FFF, Type: u64, Span: sp}}, Type: u64, Span: sp}
	return &ir.Binary{Op: ir.BitOr, A: &ir.Binary{Op: ir.BitAnd, A: desc, B: mask, Span: sp}, B: start, Span: sp}
}
