package copyasync

// copy_async/smem->tmem: shared memory -> Blackwell tensor memory with
// tcgen05.cp.32x128b.warpx4, priority 10.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy_async/
// tcgen05_cp.py (apache-tvm 0.25.0.post1); 0.26.0's planner for every
// tcgen05.cp shape is tcgen05_cp_026.go.
//
// Predicates: validate_smem_tmem_copy (TVM copy/utils.py
// _is_valid_smem_tmem_copy: "expected shared->tmem, got {src}->{dst}",
// "both buffers must have layouts", "tmem buffer must have
// allocated_addr", "requires R[4:32@TLane] on tmem, got replica=[...]")
// and exec_scope (_single_thread_exec: "expected thread exec_scope, got
// {k}").
//
// Lowering (_build_plan, copy_smem_tmem_impl): slice and canonicalize both
// layouts at the regions (a swizzled source keeps its swizzle length for a
// cross-check), require the warpx4 replica R[4:32@TLane] on the tmem side,
// permute both (TLane first, then TCol by descending stride), drop the
// broadcast (stride-0) iters after checking both split alike, group both
// into (32 lanes, middle, 16 bytes), and check: lanes (32, 1@TLane), the
// 16-byte column (n, 1@TCol) and (n, 1) in shared memory, the shared lanes
// as (4, 8) blocks whose strides give the descriptor's SBO and the swizzle
// atom width (16/32/64/128 bytes -> swizzle none/32B/64B/128B, matching the
// buffer's swizzle), 32-bit alignment of the TMEM column and 16-byte (or
// swizzle-atom) alignment of the shared start, and a 1-1 correspondence of
// the middle iters (cut at the union of their boundaries). It emits one
// descriptor (LBO 16, SBO, swizzle) encoded at the shared buffer's base
// and, for every middle index, one
//
//	tcgen05.cp.cta_group::N.32x128b.warpx4 [taddr + col], desc + off16B;
//
// No tcgen05.commit is issued (TVM leaves completion to the caller).
// As TVM, the descriptor is encoded right after the shared buffer's
// definition and shared between the calls that use the same (buffer,
// LBO, SBO, swizzle) (0.26: the same fields, any buffer).
// TVM's ValueErrors are raised with their texts.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var SmemTmem = dispatch.Variant{
	Op: "copy_async", Name: "smem->tmem", Target: "cuda", Priority: 10,
	When: []dispatch.Pred{
		{Name: "validate_smem_tmem_copy", Check: func(c *dispatch.Call) *dispatch.Decline {
			if c.Target.Release >= release.R026 {
				return validSmemTmemCopy026(c)
			}
			return validSmemTmemCopy(c)
		}},
		{Name: "exec_scope", Check: common.SingleThreadExec},
	},
	Emit: emitSmemTmem,
}

// validSmemTmemCopy is TVM _is_valid_smem_tmem_copy.
func validSmemTmemCopy(c *dispatch.Call) *dispatch.Decline {
	src, dst := c.Src().Buf, c.Dst().Buf
	if !common.MatchScope(src.Scope, "shared*") || dst.Scope != "tmem" {
		return c.Declinef(c.Span(), "expected shared->tmem, got %s->%s", src.Scope, dst.Scope)
	}
	if src.Layout == nil || dst.Layout == nil {
		return c.Decline(c.Span(), "both buffers must have layouts")
	}
	if dst.AllocatedAddr == nil {
		return c.Decline(c.ArgSpan(0), "tmem buffer must have allocated_addr")
	}
	rep := layout.ToTile(dst.Layout).Replica
	if len(rep) != 1 || rep[0].Extent != 4 || rep[0].Stride != 32 || rep[0].Axis != layout.TLane {
		return c.Declinef(c.ArgSpan(0), "requires R[4:32@TLane] on tmem, got replica=%s", iterListRepr(rep))
	}
	return nil
}

// iterRepr prints a TVM Iter: T.Iter(4, 32, "TLane").
func iterRepr(it layout.Iter) string {
	return "T.Iter(" + strconv.FormatInt(it.Extent, 10) + ", " + strconv.FormatInt(it.Stride, 10) + `, "` + it.Axis.Name + `")`
}

// iterListRepr prints a Python list of TVM Iters: [T.Iter(4, 32, "TLane")].
func iterListRepr(its []layout.Iter) string {
	parts := make([]string, len(its))
	for i, it := range its {
		parts[i] = iterRepr(it)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// axisRepr is str() of a TVM Axis: tirx.Axis(name="TLane").
func axisRepr(a *layout.Axis) string { return `tirx.Axis(name="` + a.Name + `")` }

func pyIntList(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// cpMiddle is one middle iter of the cp loop: extent, shared step in
// 16-byte units, TMEM step in 32-bit columns.
type cpMiddle struct{ n, sStep, tStep int64 }

// cpPlan is TVM _build_plan's result.
type cpPlan struct {
	swizzle    int64 // descriptor swizzle mode (0 none, 1 32B, 2 64B, 3 128B)
	sdoField   int64 // SBO in 16-byte units
	atomKByte  int64 // swizzle atom width in bytes
	middle     []cpMiddle
	initOff16B int64 // first cp's descriptor offset, 16-byte units
	// symOff16B is the runtime part of that offset (a shared region at a
	// runtime start, SFA_smem[stage, ...]), 16-byte units; nil when static.
	symOff16B ir.Expr
	tCol0     int64 // first cp's TMEM column, 32-bit units
	// symCol is the runtime part of that column (a tensor memory region
	// at a runtime start), 32-bit columns; nil when static.
	symCol ir.Expr
	total  int64 // cps issued
	// From 0.26 (v026): the PTX shape and multicast, and the descriptor's
	// LBO field (0 for 128-bit atoms; tCol0 then also carries a TLane
	// offset in its lane half, << 16).
	shape, multicast string
	ldoField         int64
	v026             bool
	sBuf, tBuf       *ir.Buffer
	ctaGroup         int64
}

func valueErr(format string, args ...any) { dispatch.Raise("ValueError", format, args...) }

func groupOrRaise(l *layout.TileLayout, shape []int64) (*layout.TileLayout, []int) {
	g, seps, err := layout.Group(l, shape)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	return g, seps
}

// canonSeg is TVM _canon_segment: the canonical shard of iters alone.
func canonSeg(iters []layout.Iter) []layout.Iter {
	return layout.CanonicalTile(layout.NewTile(iters, nil, nil)).Shard
}

// sliceAt slices buffer b's layout at the constant region g (TVM
// layout.slice(shape, region)), raising as TVM fails.
func sliceAt(g common.Region) layout.Layout {
	if !g.Static {
		valueErr("region start of %s is not a constant: tilels slices layouts at constant offsets only", g.Buf.Name)
	}
	l, err := layout.Slice(g.Lay, g.Buf.Shape, g.Bounds)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	if l == nil {
		dispatch.Raise("AttributeError", "'NoneType' object has no attribute 'canonicalize'")
	}
	return layout.Canonicalize(l, true)
}

// splitByZero is TVM _split_by_zero.
func splitByZero(l *layout.TileLayout) ([]int64, []layout.Iter) {
	var seq []int64
	var keep []layout.Iter
	cur := int64(1)
	for _, it := range l.Shard {
		if it.Stride == 0 {
			if cur > 1 {
				seq = append(seq, cur)
			}
			seq = append(seq, it.Extent)
			cur = 1
		} else {
			cur *= it.Extent
			keep = append(keep, it)
		}
	}
	if cur > 1 {
		seq = append(seq, cur)
	}
	return seq, keep
}

// alignMiddles is TVM _align_middles: cut both middles at the union of
// their cumulative-extent boundaries so they correspond 1-1.
func alignMiddles(t, s []layout.Iter) ([]layout.Iter, []layout.Iter) {
	bounds := func(its []layout.Iter) []int64 {
		var b []int64
		p := int64(1)
		for _, it := range its {
			p *= it.Extent
			b = append(b, p)
		}
		return b
	}
	tb, sb := bounds(t), bounds(s)
	if len(tb) == 0 && len(sb) == 0 {
		return t, s
	}
	var n int64
	if len(tb) > 0 {
		n = tb[len(tb)-1]
	} else {
		n = sb[len(sb)-1]
	}
	if len(sb) > 0 && sb[len(sb)-1] != n || len(tb) > 0 && tb[len(tb)-1] != n {
		last := int64(0)
		if len(sb) > 0 {
			last = sb[len(sb)-1]
		}
		valueErr("middle extent mismatch: t=%d s=%d", n, last)
	}
	cuts := slices.Clone(tb)
	for _, x := range sb {
		if !slices.Contains(cuts, x) {
			cuts = append(cuts, x)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var shape []int64
	prev := int64(1)
	for _, c := range cuts {
		if c%prev != 0 {
			valueErr("middle align failed: cut %d not divisible by prev cut %d (t_bounds=%s, s_bounds=%s)", c, prev, pyIntList(tb), pyIntList(sb))
		}
		shape = append(shape, c/prev)
		prev = c
	}
	sub := func(its []layout.Iter) []layout.Iter {
		if len(its) == 1 && len(shape) == 1 && shape[0] == its[0].Extent {
			return its
		}
		g, seps := groupOrRaise(layout.NewTile(its, nil, nil), shape)
		var out []layout.Iter
		for i := range shape {
			seg := canonSeg(g.Shard[seps[i]:seps[i+1]])
			if len(seg) != 1 {
				valueErr("middle sub-group seg[%d] not single iter after canon: %s", i, iterListRepr(seg))
			}
			out = append(out, seg[0])
		}
		return out
	}
	return sub(t), sub(s)
}

func prodIters(its []layout.Iter) int64 {
	p := int64(1)
	for _, it := range its {
		p *= it.Extent
	}
	return p
}

// buildCpPlan is TVM _build_plan (steps A..H of tcgen05_cp.py).
func buildCpPlan(c *dispatch.Call) *cpPlan {
	dst, _ := common.ConstRegion(c, 0)
	src, _ := common.ConstRegion(c, 1)
	if len(dst.Exts) != len(dst.R.Extent) || len(src.Exts) != len(src.R.Extent) {
		dispatch.Raise("TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'PrimExpr'")
	}
	sBuf, tBuf := src.Buf, dst.Buf
	bits := sBuf.Dtype.Bits
	if bits == 0 || bits > 32 {
		dispatch.Raise("ZeroDivisionError", "integer division or modulo by zero")
	}
	epb128, epb32 := int64(128/bits), int64(32/bits)

	// A: slice + canonicalize; peel a swizzle. A shared region at a
	// runtime start (a pipeline stage) is sliced at 0 for its structure,
	// its start adding a runtime element offset (common.SymOffsets), as
	// TVM's slice at a symbolic begin does.
	var swFromLayout int64
	var s *layout.TileLayout
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
		// TVM's canonicalize turns a swizzle over a trivial tile (the
		// slice covers a whole contiguous run from 0) into a bare
		// SwizzleLayout, which the planner rejects.
		if layout.IsTrivial(l.Tile) {
			valueErr("s slice produced bare SwizzleLayout (unexpected)")
		}
		swFromLayout, s = int64(l.SwizzleLen), l.Tile
	case *layout.TileLayout:
		s = l
	}
	tl, ok := sliceAt(dstAt).(*layout.TileLayout)
	if !ok {
		valueErr("tmem slice is not a TileLayout")
	}
	t := tl

	// B: warpx4 router.
	if rep := t.Replica; len(rep) != 1 || rep[0].Extent != 4 || rep[0].Stride != 32 || rep[0].Axis != layout.TLane {
		parts := make([]string, len(rep))
		for i, r := range rep {
			parts[i] = fmt.Sprintf("(%d, %d, '%s')", r.Extent, r.Stride, axisRepr(r.Axis))
		}
		valueErr("warpx4 router fail: t.replica = [%s]", strings.Join(parts, ", "))
	}

	// C: permute (TLane first, then TCol stride descending; stable).
	perm := make([]int, len(t.Shard))
	for i := range perm {
		perm[i] = i
	}
	key := func(i int) (int, int64) {
		a := 1
		if t.Shard[i].Axis == layout.TLane {
			a = 0
		}
		return a, -t.Shard[i].Stride
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		ka, sa := key(a)
		kb, sb := key(b)
		if ka != kb {
			return ka - kb
		}
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

	// F: group into (32, middle, elem_per_128b).
	nMidT := prodIters(tIso.Shard) / (32 * epb128)
	nMidS := prodIters(sIso.Shard) / (32 * epb128)
	tGrp, ts := groupOrRaise(tIso, []int64{32, nMidT, epb128})
	sGrp2, ss := groupOrRaise(sIso, []int64{32, nMidS, epb128})
	tLane := canonSeg(tGrp.Shard[ts[0]:ts[1]])
	tMid := canonSeg(tGrp.Shard[ts[1]:ts[2]])
	tCol := canonSeg(tGrp.Shard[ts[2]:ts[3]])
	sLane := slices.Clone(sGrp2.Shard[ss[0]:ss[1]])
	sMid := canonSeg(sGrp2.Shard[ss[1]:ss[2]])
	sCol := canonSeg(sGrp2.Shard[ss[2]:ss[3]])
	tMid, sMid = alignMiddles(tMid, sMid)

	// F.1: lanes and columns.
	if len(tLane) != 1 {
		valueErr("t_lane must canonicalize to single iter, got %s", iterListRepr(tLane))
	}
	if len(tCol) != 1 {
		valueErr("t_col must canonicalize to single iter, got %s", iterListRepr(tCol))
	}
	if len(sCol) != 1 {
		valueErr("s_col must canonicalize to single iter, got %s", iterListRepr(sCol))
	}
	if li := tLane[0]; li.Extent != 32 || li.Stride != 1 || li.Axis != layout.TLane {
		valueErr("t_lane must be (32, 1@TLane), got %s", iterRepr(li))
	}
	if ci := tCol[0]; ci.Extent != epb128 || ci.Stride != 1 || ci.Axis != layout.TCol {
		valueErr("t_col must be (%d, 1@TCol), got %s", epb128, iterRepr(ci))
	}
	if sci := sCol[0]; sci.Extent != epb128 || sci.Stride != 1 {
		valueErr("s_col must be (%d, 1, m), got %s", epb128, iterRepr(sci))
	}

	// F.2: shared lanes as (4, 8) -> SBO and the swizzle atom.
	lg, lseps := groupOrRaise(layout.NewTile(sLane, nil, nil), []int64{4, 8})
	blk4, blk8 := lg.Shard[lseps[0]:lseps[1]], lg.Shard[lseps[1]:lseps[2]]
	if len(blk4) != 1 || len(blk8) != 1 {
		valueErr("s_lane must group into single iter per block: blk_4=%s, blk_8=%s", iterListRepr(blk4), iterListRepr(blk8))
	}
	sdoByte := pyFloorDiv(blk4[0].Stride*int64(bits), 8)
	atomK := pyFloorDiv(blk8[0].Stride*int64(bits), 8)
	sw, ok := map[int64]int64{16: 0, 32: 1, 64: 2, 128: 3}[atomK]
	if !ok {
		valueErr("atom_K_byte %d not in {16,32,64,128}", atomK)
	}
	if swFromLayout != sw {
		valueErr("swizzle mode mismatch: s_layout swizzle_len=%d but atom_K_byte=%d implies sw=%d", swFromLayout, atomK, sw)
	}

	// G: alignments.
	tColOff := tIso.Offset[layout.TCol]
	if pyMod(tColOff, epb32) != 0 {
		valueErr("t TCol offset %d not provably 32b-aligned", tColOff)
	}
	sOff := sIso.Offset[layout.M]
	alignElem, label := 16*8/int64(bits), "16B"
	if sw != 0 {
		atomSize := 8 * atomK
		alignElem, label = atomSize*8/int64(bits), fmt.Sprintf("atom=%dB", atomSize)
	}
	if pyMod(sOff, alignElem) != 0 {
		valueErr("s offset %d not provably aligned to %s (%d %s elements)", sOff, label, alignElem, sBuf.Dtype)
	}
	if symCol != nil && !provablyMultiple(symCol, epb32) {
		valueErr("t TCol offset %s not provably 32b-aligned", bare(dispatch.ExprText(ir.AddE(symCol, common.Cst(tColOff)))))
	}
	if symM != nil && !provablyMultiple(symM, alignElem) {
		valueErr("s offset %s not provably aligned to %s (%d %s elements)", bare(dispatch.ExprText(ir.AddE(symM, common.Cst(sOff)))), label, alignElem, sBuf.Dtype)
	}

	// H: middle 1-1.
	if len(tMid) != len(sMid) {
		valueErr("t_middle iter count %d != s_middle %d (simple-mode requires 1-1)", len(tMid), len(sMid))
	}
	p := &cpPlan{swizzle: sw, atomKByte: atomK, sBuf: sBuf, tBuf: tBuf, total: 1}
	for i := range tMid {
		ti, si := tMid[i], sMid[i]
		if ti.Extent != si.Extent {
			valueErr("middle[%d] extent: t=%d s=%d", i, ti.Extent, si.Extent)
		}
		if ti.Extent == 1 {
			continue
		}
		if ti.Axis != layout.TCol {
			valueErr("middle[%d] t axis must be TCol, got %s", i, axisRepr(ti.Axis))
		}
		sStride := pyFloorDiv(si.Stride*int64(bits), 8)
		if pyMod(sStride, 16) != 0 {
			valueErr("s_middle[%d] stride %dB not 16B-aligned", i, sStride)
		}
		p.middle = append(p.middle, cpMiddle{ti.Extent, sStride / 16, pyFloorDiv(ti.Stride, epb32)})
		p.total *= ti.Extent
	}
	p.sdoField = pyFloorDiv(sdoByte, 16)
	p.initOff16B = pyFloorDiv(pyFloorDiv(sOff*int64(bits), 8), 16)
	if symM != nil {
		// Aligned to at least 16 bytes (checked above): exact.
		if e, ok := scaleExact(symM, int64(bits), 128); ok {
			p.symOff16B = e
		} else {
			p.symOff16B = ir.DivE(ir.MulE(symM, common.Cst(int64(bits))), common.Cst(128))
		}
	}
	p.tCol0 = pyFloorDiv(tColOff, epb32)
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

func pyFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func pyMod(a, b int64) int64 { return a - pyFloorDiv(a, b)*b }

// cpLDOField is the descriptor's LBO field: tcgen05.cp.32x128b ignores it
// (TVM's placeholder 16).
const cpLDOField = 16

// smemDescriptor is the 64-bit tcgen05 shared memory descriptor TVM's
// tvm_builtin_ptx_tcgen05_encode_matrix_descriptor writes for a start
// address (bytes), LBO and SBO fields (16-byte units) and a swizzle mode:
// start >> 4 in bits [0, 14), LBO in [16, 30), SBO in [32, 46), version 1
// in [46, 48), base offset 0 in [49, 52), LBO mode 0 in bit 52 and the
// layout type in [61, 64) (mode 0/1/2/3/4 -> 0/6/4/2/1).
func smemDescriptor(startAddr, ldo, sdo, swizzle int64) uint64 {
	lt := map[int64]uint64{0: 0, 1: 6, 2: 4, 3: 2, 4: 1}[swizzle]
	return uint64(startAddr>>4)&0x3FFF | uint64(ldo)&0x3FFF<<16 | uint64(sdo)&0x3FFF<<32 | 1<<46 | lt<<61
}

// smemDescAdd16B is TVM's tvm_builtin_smem_desc_add_16B_offset: offset
// added to the descriptor's low 32 bits (wrapping there).
func smemDescAdd16B(desc uint64, offset int64) uint64 {
	return desc&^0xFFFFFFFF | uint64(uint32(desc)+uint32(offset))
}

var swizzleNames = []string{"none", "32B", "64B", "128B", "128B_base32B"}

func emitSmemTmem(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	var p *cpPlan
	if c.Target.Release >= release.R026 {
		if v, ok := c.Config("decompress"); ok && v != nil {
			if n, isC := ir.ConstInt(v); !isC || n != 0 {
				valueErr("tcgen05.cp planner does not support decompress")
			}
		}
		p = buildCpPlan026(c)
	} else {
		p = buildCpPlan(c)
		p.shape, p.multicast, p.ldoField = "32x128b", "warpx4", cpLDOField
	}
	if p.ctaGroup != 1 && p.ctaGroup != 2 {
		valueErr("cta_group must be 1 or 2, got %d", p.ctaGroup)
	}
	span := c.Span()
	u64 := ir.DataType{Code: ir.UInt, Bits: 64}
	// The template is encoded once per Lower run, right after the shared
	// buffer's definition (_get_or_create_desc): 0.25 keeps one per
	// (buffer, LBO, SBO, swizzle), encoded at the buffer's base; 0.26
	// one per (LBO, SBO, swizzle), encoded at shared address 0, placed
	// after the buffer of the first call that needs it and shared by the
	// calls on other buffers.
	key := fmt.Sprintf("smem_tmem_desc:%d:%d:%d", p.ldoField, p.sdoField, p.swizzle)
	if !p.v026 {
		key = fmt.Sprintf("smem_tmem_desc:%p:%d:%d:%d", p.sBuf, p.ldoField, p.sdoField, p.swizzle)
	}
	var stmts []ir.Stmt
	var post []dispatch.PostDef
	desc, cached := (*ir.Buffer)(nil), false
	if v, ok := c.CacheGet(key); ok {
		desc, cached = v.(*ir.Buffer), true
	}
	if !cached {
		desc = &ir.Buffer{Name: "cp_desc", Shape: []int64{1}, Dtype: u64, Scope: "local", Kind: ir.AllocBuffer, Span: span}
		desc.Data = &ir.Var{Name: desc.Name, Type: ir.HandleT, Span: span}
		zeros := make([]ir.Expr, len(p.sBuf.Shape))
		for i := range zeros {
			zeros[i] = common.Zero
		}
		var descAt ir.Expr = &ir.AddressOf{Buf: p.sBuf, Indices: zeros, Span: span}
		if p.v026 {
			// 0.26: the template is encoded at shared address 0.
			descAt = &ir.Call{Op: "reinterpret", Args: []ir.Expr{&ir.IntImm{Value: 0, Type: u64, Span: span}}, Type: ir.HandleT, Span: span}
		}
		post = []dispatch.PostDef{{Buf: p.sBuf, Stmts: []ir.Stmt{
			&ir.Alloc{Buf: desc, Span: span},
			&ir.Evaluate{X: &ir.Call{Op: ir.OpTcgen05EncodeMatrixDesc, Args: []ir.Expr{
				&ir.BufferData{Buf: desc, Span: span}, descAt,
				common.Cst(p.ldoField), common.Cst(p.sdoField), common.Cst(p.swizzle)}, Span: span}, Span: span},
		}}}
		c.CacheSet(key, desc)
	}
	descVal := &ir.Load{Buf: desc, Indices: []ir.Expr{common.Zero}, Span: span}
	var steps []string
	for flat := range p.total {
		div, tOff, sOff := int64(1), int64(0), int64(0)
		for _, m := range p.middle {
			idx := flat / div % m.n
			div *= m.n
			tOff += idx * m.tStep
			sOff += idx * m.sStep
		}
		taddr := ir.AddE(p.tBuf.AllocatedAddr, common.Cst(p.tCol0+tOff))
		if p.symCol != nil {
			taddr = ir.AddE(ir.AddE(p.tBuf.AllocatedAddr, p.symCol), common.Cst(p.tCol0+tOff))
		}
		var off ir.Expr = common.Cst(p.initOff16B + sOff)
		if p.symOff16B != nil {
			off = ir.AddE(p.symOff16B, off)
		}
		var d ir.Expr = &ir.Call{Op: ir.OpSmemDescAdd16B, Args: []ir.Expr{descVal, off}, Type: u64, Span: span}
		if p.v026 {
			d = cpDescAt026(descVal, p.sBuf, off, span)
		}
		stmts = append(stmts, &ir.Evaluate{X: &ir.Call{Op: ir.OpTcgen05Cp, Args: []ir.Expr{
			taddr, d, &ir.StringImm{Value: p.shape, Span: span}, common.Cst(p.ctaGroup),
			&ir.StringImm{Value: p.multicast, Span: span}}, Span: span}, Span: span})
		if flat < 8 {
			steps = append(steps, fmt.Sprintf("cp %d: tmem column +%d, descriptor +%d x 16 B (0x%016x)", flat, p.tCol0+tOff,
				p.initOff16B+sOff, smemDescAdd16B(smemDescriptor(0, p.ldoField, p.sdoField, p.swizzle), p.initOff16B+sOff)))
		}
	}
	if p.total > 8 {
		steps = append(steps, fmt.Sprintf("... %d more", p.total-8))
	}
	instr := fmt.Sprintf("tcgen05.cp.cta_group::%d.%s", p.ctaGroup, shapeLabel(p.shape, p.multicast))
	descHex := smemDescriptor(0, p.ldoField, p.sdoField, p.swizzle)
	rows, rowBits := cpShapeDims(p.shape)
	shapeText := fmt.Sprintf("%s (%d lanes x %d bytes)", p.shape, rows, rowBits/8)
	if p.multicast != "" {
		shapeText += ", multicast " + p.multicast
	}
	if p.shape == "32x128b" && p.multicast == "warpx4" {
		shapeText = "32x128b (32 lanes x 16 bytes), multicast warpx4 (replicated to the 4 warp lane slabs)"
	}
	ldoText := fmt.Sprintf("%d (%d B; ignored by 32x128b)", p.ldoField, p.ldoField*16)
	if p.v026 {
		ldoText = fmt.Sprintf("%d (%d B between a row's two 16-byte units; 0 for 128-bit atoms)", p.ldoField, p.ldoField*16)
	}
	startText := "&" + p.sBuf.Name + "[0] >> 4 (runtime), + offset per cp"
	if p.v026 {
		startText = "0 in the template; each cp sets it to cvta(&" + p.sBuf.Name + "[0] + offset x 16 B) >> 4"
	}
	var mids []string
	for _, m := range p.middle {
		mids = append(mids, fmt.Sprintf("%d (tmem +%d columns, smem +%d x 16 B)", m.n, m.tStep, m.sStep))
	}
	midText := "none"
	if len(mids) > 0 {
		midText = strings.Join(mids, " x ") + " (first fastest)"
	}
	plan := []dispatch.PlanItem{
		{Key: "instruction", Value: instr},
		{Key: "shape", Value: shapeText},
		{Key: "repetitions", Value: "none (one 32-lane x 128-bit block per cp)"},
		{Key: "instructions", Value: strconv.FormatInt(p.total, 10)},
		{Key: "middle iters", Value: midText},
		{Key: "smem descriptor", Value: fmt.Sprintf("0x%016x (start address 0; the start is &%s[0] >> 4 at run time)", descHex, p.sBuf.Name),
			Fields: []dispatch.PlanItem{
				{Key: "start address [0,14)", Value: startText},
				{Key: "LBO [16,30)", Value: ldoText},
				{Key: "SBO [32,46)", Value: fmt.Sprintf("%d (%d B between 8-row groups)", p.sdoField, p.sdoField*16)},
				{Key: "version [46,48)", Value: "1"},
				{Key: "base offset [49,52)", Value: "0"},
				{Key: "LBO mode [52]", Value: "0"},
				{Key: "layout type [61,64)", Value: fmt.Sprintf("%d (swizzle %s, atom %d B)", descHex>>61, swizzleNames[p.swizzle], p.atomKByte)},
			}},
		{Key: "first descriptor offset", Value: firstOffText(p)},
		{Key: "first tmem column", Value: firstColText(p)},
		{Key: "steps", Value: strings.Join(steps, "; ")},
		{Key: "bytes moved", Value: bytesMovedText(p, rows, rowBits)},
		{Key: "completion", Value: "async: tcgen05.commit to an mbarrier (not issued)"},
	}
	where := "encoded once, right after the declaration of " + p.sBuf.Name
	if cached {
		where = "encoded by an earlier call (one per kernel for these fields"
		if !p.v026 {
			where += " and this buffer"
		}
		where += ")"
	}
	plan = append(plan, dispatch.PlanItem{Key: "descriptor template", Value: where})
	return &dispatch.Result{Body: &ir.Block{Stmts: stmts, Span: span}, Outer: p.total, Threads: 1, Plan: plan, PostDef: post,
		Notes: []string{fmt.Sprintf("%d x %s from one shared memory descriptor", p.total, instr)}}, nil
}

// bytesMovedText is the shared bytes the cps read and how tensor memory
// receives them (replicated by the multicast).
func bytesMovedText(p *cpPlan, rows, rowBits int64) string {
	per := rows * rowBits / 8
	into := "into tmem"
	switch p.multicast {
	case "warpx4":
		into = "x4 into tmem"
	case "warpx2::02_13", "warpx2::01_23":
		into = "x2 into tmem"
	}
	return fmt.Sprintf("%d from shared memory (%d per cp), %s", p.total*per, per, into)
}

// firstOffText is the plan's first descriptor offset: static, or with the
// runtime part of a shared region at a runtime start.
func firstOffText(p *cpPlan) string {
	if p.symOff16B == nil {
		return fmt.Sprintf("%d x 16 B", p.initOff16B)
	}
	return fmt.Sprintf("%s x 16 B", bare(dispatch.ExprText(ir.AddE(p.symOff16B, common.Cst(p.initOff16B)))))
}

// atZero returns g with its runtime starts at 0 (the slice's structure)
// and their offset on axis (the shared memory's M, tensor memory's TCol);
// it raises as sliceAt when a runtime start would change the slice or
// lands on another axis.
func atZero(g common.Region, axis *layout.Axis) (common.Region, ir.Expr) {
	sym, ok := common.SymOffsets(g)
	if !ok {
		valueErr("region start of %s is not a constant: tilels slices layouts at constant offsets only", g.Buf.Name)
	}
	var m ir.Expr
	for a, e := range sym {
		if a != axis {
			valueErr("region start of %s is not a constant: tilels slices layouts at constant offsets only", g.Buf.Name)
		}
		m = e
	}
	z := g
	z.Bounds = make([][2]int64, len(g.Mins))
	for d, e := range g.Mins {
		lo, isConst := ir.ConstInt(e)
		if !isConst {
			lo = 0
		}
		z.Bounds[d] = [2]int64{lo, lo + g.Exts[d]}
	}
	z.Static = true
	return z, m
}

// provablyMultiple reports whether e is a multiple of k for every value
// of its variables: a sum of terms, each a constant multiple of k or a
// product with such a constant.
func provablyMultiple(e ir.Expr, k int64) bool {
	if k <= 1 {
		return true
	}
	if c, ok := ir.ConstInt(e); ok {
		return c%k == 0
	}
	b, ok := e.(*ir.Binary)
	if !ok {
		return false
	}
	switch b.Op {
	case ir.Add, ir.Sub:
		return provablyMultiple(b.A, k) && provablyMultiple(b.B, k)
	case ir.Mul:
		return provablyMultiple(b.A, k) || provablyMultiple(b.B, k)
	}
	return false
}

// scaleExact returns e * num / den term by term when every term's constant
// factor times num is a multiple of den (stage * 2048 elements of 8 bits
// is stage * 128 16-byte units).
func scaleExact(e ir.Expr, num, den int64) (ir.Expr, bool) {
	if c, ok := ir.ConstInt(e); ok {
		if c*num%den != 0 {
			return nil, false
		}
		return common.Cst(c * num / den), true
	}
	b, ok := e.(*ir.Binary)
	if !ok {
		return nil, false
	}
	switch b.Op {
	case ir.Add:
		x, ok1 := scaleExact(b.A, num, den)
		y, ok2 := scaleExact(b.B, num, den)
		if ok1 && ok2 {
			return ir.AddE(x, y), true
		}
	case ir.Mul:
		for _, pr := range [2][2]ir.Expr{{b.A, b.B}, {b.B, b.A}} {
			if c, ok := ir.ConstInt(pr[1]); ok && c*num%den == 0 {
				return ir.MulE(pr[0], common.Cst(c*num/den)), true
			}
		}
	}
	return nil, false
}

// firstColText is the plan's first TMEM column, with its runtime part.
func firstColText(p *cpPlan) string {
	if p.symCol == nil {
		return fmt.Sprintf("%d (32-bit units)", p.tCol0)
	}
	return fmt.Sprintf("%s (32-bit units)", bare(dispatch.ExprText(ir.AddE(p.symCol, common.Cst(p.tCol0)))))
}

// bare drops the parentheses around a whole expression text, as TVM
// prints a PrimExpr in a message ("k * 520", not "(k * 520)").
func bare(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s // "(a) + (b)": not one pair
			}
		}
	}
	return s[1 : len(s)-1]
}
