package copy

// copy/reg: register <-> shared/global copy, partitioned by the register
// side's layout (spec §4.3).
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy/reg.py at
// PRE abe2526b3e (SEED: second half of vec_auto, same algorithm). The
// `local` operand R carries the partition: its thread-axis iters say which
// thread owns which element. Both sides are sliced and canonicalized, S is
// grouped by R's iters and permuted with them (thread iters first, then by
// stride), R's memory iters pair with their S groups into atoms
// (extent, s_stride, r_mul), and the widest vector that divides the
// contiguous atom tail and keeps every outer stride and offset aligned
// wins. Following HEAD (spec §7.3), the width is also capped at the swizzle
// chunk of a swizzled shared operand.
//
// Rejects (predicate reg_applicable, first failure only): non-cuda target,
// scope outside thread/warp/warpgroup/cta, narrowed scopes, invalid copies,
// pairs other than local<->shared*/global, an R layout that is missing,
// swizzled, not a TileLayout, has thread axes above the exec scope or a
// non-zero thread offset after slicing, and an S side that cannot be
// sliced. Never declines in the emitter.
//
// Emits, per thread: s_off (from the thread indices) then a serial loop
// over the outer atoms of T.cuda.copy_bytes between &S[0] + s_off + ds and
// &R[0] + r_off + dr (R's flat per-thread storage); a swizzled S gets the
// full XOR formula per iteration or the §4.1.1 fast path.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var Reg = dispatch.Variant{
	Op: "copy", Name: "reg", Target: "cuda", Priority: 10, Releases: release.Only(release.R025),
	Renamed: []string{"vec_auto"}, // 0.26's name for gmem_smem and reg
	When:    []dispatch.Pred{{Name: "reg_applicable", Check: isRegCopy}},
	Emit:    emitReg,
}

func isRegCopy(c *dispatch.Call) *dispatch.Decline { return common.FirstFailure(c, regChecks...) }

// regChecks is built once (see gmemSmemChecks).
var regChecks = []common.Check{
	common.CudaTarget,
	common.ExecScopeIn("", "thread", "warp", "warpgroup", "cta"),
	common.AllThreadsActive,
	common.IsValidCopy,
	common.ScopeAllowed(common.RegPairs),
	common.RSideLayoutValid,
	common.SSideSliceOk,
}

// atom is one (R position, S iter) pair: extent, S stride, R stride.
type atom struct{ ext, s, r int64 }

// regPlan is the result of the register-side alignment.
type regPlan struct {
	rp, sp  *layout.TileLayout // canonical permuted R; permuted S
	atoms   []atom
	regs    int64 // per-thread register count (∏ kept R extents)
	rOffset int64 // Σ rp offsets
	// rSym, sSym are the symbolic start offsets (nil when static).
	rSym, sSym ir.Expr
}

// alignReg is TVM _align_layouts + align_layouts_raw + _split_thread_loop
// + _build_atoms.
func alignReg(rg, sg common.Region) regPlan {
	rsl, _ := common.SliceLayout(rg)
	ssl, _ := common.SliceLayout(sg)
	r := common.Canon(common.MustTile(rsl))
	s := layout.StripSwizzleToTile(layout.Canonicalize(ssl, true), sg.Exts)
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
	sGrp, seps, err := layout.Group(s, r.Extents())
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	sp := layout.PermuteByGroups(sGrp, seps, perm)
	rPerm := layout.PermuteDims(r, perm)
	rp := common.Canon(rPerm)
	sSeps := []int{0}
	for _, p := range perm {
		sSeps = append(sSeps, sSeps[len(sSeps)-1]+seps[p+1]-seps[p])
	}
	plan := regPlan{rp: rp, sp: sp, regs: 1}
	for k, it := range rPerm.Shard {
		if it.Axis.IsThread() {
			continue
		}
		plan.regs *= it.Extent
		group := sp.Shard[sSeps[k]:sSeps[k+1]]
		for j, sit := range group {
			inner := int64(1)
			for _, g := range group[j+1:] {
				inner *= g.Extent
			}
			plan.atoms = append(plan.atoms, atom{sit.Extent, sit.Stride, it.Stride * inner})
		}
	}
	for _, v := range rp.Offset {
		plan.rOffset += v
	}
	plan.rSym, plan.sSym = common.MemSym(rg), common.MemSym(sg)
	return plan
}

// tailExtent is TVM _atoms_contiguous_tail_extent.
func tailExtent(atoms []atom) int64 {
	if len(atoms) == 0 || atoms[len(atoms)-1].s != 1 {
		return 0
	}
	acc := atoms[len(atoms)-1].ext
	for k := len(atoms) - 2; k >= 0 && atoms[k].s == acc; k-- {
		acc *= atoms[k].ext
	}
	return acc
}

// splitAtoms is TVM _split_atoms_for_vec: drop the vec-element tail.
func splitAtoms(atoms []atom, vec int64) []atom {
	outer := append([]atom{}, atoms...)
	acc := int64(1)
	for len(outer) > 0 {
		a := outer[len(outer)-1]
		n := acc * a.ext
		if n == vec {
			return outer[:len(outer)-1]
		}
		if n > vec {
			f := vec / acc
			outer[len(outer)-1] = atom{a.ext / f, a.s * f, a.r * f}
			return outer
		}
		acc = n
		outer = outer[:len(outer)-1]
	}
	if vec == 1 {
		// Deviation: no memory atoms at all (one register per thread, e.g.
		// a row statistic S[(32,1):(1@laneid,1)]) is one scalar transfer.
		// TVM (PRE, SEED and 0.25.0.post1 alike) raises "tail too short for
		// vec_len 1" here, so its reg variant fails with an exception and
		// the copy falls to fallback, which cannot index a thread-axis
		// buffer: the copy does not lower at all. Seen by the
		// reference-agreement corpus (docs/reference-agreement.md).
		return outer
	}
	dispatch.Raise("ValueError", "tail too short for vec_len %d", vec)
	return nil
}

// chooseVec is TVM _choose_vec_len (plus HEAD's swizzle-chunk cap).
func chooseVec(elemBits int, plan regPlan, chunk int64) int64 {
	t := tailExtent(plan.atoms)
	var shared []int64
	for _, v := range plan.sp.Offset {
		shared = append(shared, v)
	}
	for _, v := range plan.rp.Offset {
		shared = append(shared, v)
	}
	for _, n := range common.VecCandidates(elemBits, nil) {
		if n == 1 {
			return 1
		}
		if chunk > 0 && n > chunk {
			continue
		}
		if t%n != 0 || t < n {
			continue
		}
		ok := true
		for _, a := range splitAtoms(plan.atoms, n) {
			ok = ok && a.s%n == 0 && a.r%n == 0
		}
		for _, v := range shared {
			ok = ok && v%n == 0
		}
		ok = ok && common.Divisible(plan.rSym, n) && common.Divisible(plan.sSym, n)
		if ok {
			return n
		}
	}
	return 1
}

// threadRange is the hardware range of a thread axis index (HEAD's
// s_apply_layout bounds).
func threadRange(c *dispatch.Call, axis string) int64 {
	tx, _ := c.ThreadIdxX()
	switch axis {
	case "laneid":
		return 32
	case "wid_in_wg":
		return 4
	case "tid_in_wg":
		return 128
	case "tx":
		return tx
	case "warpid":
		return tx / 32
	case "wgid":
		return tx / 128
	}
	return 0
}

// sThreadOffset is TVM _s_thread_offset over the given coordinates.
func sThreadOffset(rp, sp *layout.TileLayout, coord func(axis string) ir.Expr) ir.Expr {
	cs := make([]ir.Expr, len(rp.Shard))
	shape := rp.Extents()
	for k, it := range rp.Shard {
		cs[k] = common.Cst(0)
		if it.Axis.IsThread() {
			cs[k] = coord(it.Axis.Name)
		}
	}
	digits, g := common.DigitsForShape(sp, cs, shape)
	var off ir.Expr = common.Cst(0)
	for i, it := range g.Shard {
		off = ir.AddE(off, ir.MulE(digits[i], common.Cst(it.Stride)))
	}
	for _, a := range common.SortedAxes(sp.Offset) {
		off = ir.AddE(off, common.Cst(sp.Offset[a]))
	}
	return off
}

// threadOffsets evaluates sThreadOffset for every combination of thread
// index values; nil when the thread ranges are unknown or too large.
func threadOffsets(c *dispatch.Call, plan regPlan) []int64 {
	var axes []string
	for _, it := range plan.rp.Shard {
		if it.Axis.IsThread() && !containsStr(axes, it.Axis.Name) {
			axes = append(axes, it.Axis.Name)
		}
	}
	total := int64(1)
	ranges := make([]int64, len(axes))
	for i, a := range axes {
		ranges[i] = threadRange(c, a)
		total *= ranges[i]
	}
	if total <= 0 || total > 1<<14 {
		return nil
	}
	out := make([]int64, 0, total)
	vals := map[string]int64{}
	for k := range total {
		rem := k
		for i := len(axes) - 1; i >= 0; i-- {
			vals[axes[i]] = rem % ranges[i]
			rem /= ranges[i]
		}
		e := sThreadOffset(plan.rp, plan.sp, func(a string) ir.Expr { return common.Cst(vals[a]) })
		v, ok := ir.ConstInt(e)
		if !ok {
			return nil
		}
		out = append(out, v)
	}
	return out
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func emitReg(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	ri := common.RegSide(c)
	rg, _ := common.ConstRegion(c, ri)
	sg, _ := common.ConstRegion(c, 1-ri)
	rIsSrc := ri == 1
	span := c.Span()
	elemBits := rg.Buf.Dtype.Bits

	plan := alignReg(rg, sg)
	sw := layout.BareSwizzle(sg.Lay)
	chunk := int64(0)
	if sw != nil && sw.SwizzleLen > 0 {
		chunk = int64(1) << sw.PerElement
	}
	v := chooseVec(elemBits, plan, chunk)
	outer := splitAtoms(plan.atoms, v)
	totalOuter := int64(1)
	exts := make([]int64, len(outer))
	for i, a := range outer {
		totalOuter *= a.ext
		exts[i] = a.ext
	}
	numBytes := v * int64(elemBits) / 8

	var stmts []ir.Stmt
	sOff := addSym(sThreadOffset(plan.rp, plan.sp, c.AxisDecl), plan.sSym)
	if _, ok := ir.ConstInt(sOff); !ok {
		sv := &ir.Var{Name: "s_off", Type: ir.Int32, Span: span}
		stmts = append(stmts, &ir.Let{Var: sv, Value: sOff, Span: span})
		sOff = sv
	}
	var pat *swizzlePattern
	var st swizzleState
	if sw != nil {
		strides := make([]int64, len(outer))
		for i, a := range outer {
			strides[i] = a.s
		}
		if offs := threadOffsets(c, plan); offs != nil && plan.sSym == nil {
			pat = tryRecognize(sw, exts, strides, offs)
		}
		if pat != nil {
			init, s0 := emitInit(pat, sOff, span)
			stmts = append(stmts, init...)
			st = s0
		}
	}
	stmts = append(stmts, common.SerialLoop("f", totalOuter, span, func(f ir.Expr) []ir.Stmt {
		coords := common.DigitExprs(f, exts)
		var ds, dr ir.Expr = common.Cst(0), common.Cst(0)
		for i, a := range outer {
			ds = ir.AddE(ds, ir.MulE(coords[i], common.Cst(a.s)))
			dr = ir.AddE(dr, ir.MulE(coords[i], common.Cst(a.r)))
		}
		var sIter ir.Expr
		switch {
		case pat != nil:
			sIter = emitIterOffset(pat, st, f, span)
		case sw != nil:
			sIter = common.SwizzleExpr(sw, ir.AddE(sOff, ds))
		default:
			sIter = ir.AddE(sOff, ds)
		}
		sPtr := common.PtrOff(sg.Buf, sIter, span)
		rPtr := common.PtrOff(rg.Buf, addSym(ir.AddE(common.Cst(plan.rOffset), dr), plan.rSym), span)
		if rIsSrc {
			return []ir.Stmt{common.CopyBytes(sPtr, rPtr, numBytes, span)}
		}
		return []ir.Stmt{common.CopyBytes(rPtr, sPtr, numBytes, span)}
	})...)

	var as []string
	for _, a := range plan.atoms {
		as = append(as, fmt.Sprintf("(%d,%d,%d)", a.ext, a.s, a.r))
	}
	res := &dispatch.Result{
		Body: &ir.Block{Stmts: stmts, Span: span}, Vec: v, VecBits: v * int64(elemBits), Outer: totalOuter,
		Threads: c.ThreadCnt(), Partition: plan.rp.String() + " <-> " + plan.sp.String(),
		Notes: []string{"atoms [" + strings.Join(as, ",") + "]", fmt.Sprintf("%d registers per thread", plan.regs)},
	}
	if pat != nil {
		res.Notes = append(res.Notes, "swizzle fast path: signed strides")
	}
	return res, nil
}
