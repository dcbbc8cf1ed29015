package copy

// copy/vec_auto, register <-> shared/global half, as 0.26.0 and
// 0.27.0.post1 emit it.
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy/vec_auto_reg.py
// at 0.27.0.post1. The predicate and the plan (atoms, vector width capped at
// the swizzle chunk, R paired with S through the permuted, uncanonicalized R)
// are reg.go's, which already follows this revision. The emission differs
// from 0.25's:
//
//   - the shared/global address: without a swizzle, the thread base
//     (computed once) plus the round's constant offset; with one,
//     recompose_swizzle's full formula over base + offset on every round
//     (no signed-stride fast path);
//   - the registers move through a view of R in the PTX container type
//     (r_local.view(reg_dtype)): word index (r_off + dr) * words_per_elem //
//     elems_per_word, one T.ptx["ld.<space>[.nc][hints].<tail>"] or
//     T.ptx["st.<space>.<tail>"] per round;
//   - cache="nc" folds .nc into global -> register loads only; l1_evict,
//     l2_evict and prefetch_size go on every load chain.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

func emitReg27(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
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
	} else {
		sw = nil
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
	form := copyPtxForm(numBytes)
	space := "global"
	if strings.HasPrefix(sg.Buf.Scope, "shared") {
		space = "shared"
	}
	cache, _, hints := ldCacheConfig(c)
	hints.nc = cache == "nc" && space == "global" && !rIsSrc
	stChain := "st." + space + "." + form.tail
	ldChain := ldChain(space, form.tail, hints)
	containerBits := numBytes * 8 / int64(form.lanes)
	elemsPerWord, wordsPerElem := int64(1), int64(1)
	if containerBits >= int64(elemBits) {
		elemsPerWord = containerBits / int64(elemBits)
	} else {
		wordsPerElem = int64(elemBits) / containerBits
	}

	// R viewed as words of the container type (R itself when its dtype is
	// the container's).
	words := rg.Buf
	var stmts []ir.Stmt
	if rg.Buf.Dtype != form.reg || !plainFlat(rg.Buf) {
		words = &ir.Buffer{Name: rg.Buf.Name + "_words", Dtype: form.reg, Scope: "local", Kind: ir.DeclBuffer,
			Base: rg.Buf, Span: span}
		words.Shape = []int64{max(1, rg.Buf.NumElements()*int64(elemBits)/containerBits)}
		words.Layout = layout.RowMajor(words.Shape...)
		words.Data = rg.Buf.Data
		stmts = append(stmts, &ir.Decl{Buf: words, Span: span})
	}

	sBase := addSym(sThreadOffset(plan.rp, plan.sp, c.AxisDecl), plan.sSym)
	if _, ok := ir.ConstInt(sBase); !ok && sw == nil {
		sv := &ir.Var{Name: "s_base", Type: ir.Int32, Span: span}
		stmts = append(stmts, &ir.Let{Var: sv, Value: sBase, Span: span})
		sBase = sv
	}
	stmts = append(stmts, common.SerialLoop("f", totalOuter, span, func(f ir.Expr) []ir.Stmt {
		coords := common.DigitExprs(f, exts)
		var ds, dr ir.Expr = common.Cst(0), common.Cst(0)
		for i, a := range outer {
			ds = ir.AddE(ds, ir.MulE(coords[i], common.Cst(a.s)))
			dr = ir.AddE(dr, ir.MulE(coords[i], common.Cst(a.r)))
		}
		sOff := ir.AddE(sBase, ds)
		if sw != nil {
			sOff = common.SwizzleExpr(sw, sOff)
		}
		sPtr := common.PtrOff(sg.Buf, sOff, span)
		rw := addSym(ir.AddE(common.Cst(plan.rOffset), dr), plan.rSym)
		if wordsPerElem != 1 {
			rw = ir.MulE(rw, common.Cst(wordsPerElem))
		}
		if elemsPerWord != 1 {
			rw = ir.DivE(rw, common.Cst(elemsPerWord))
		}
		regs := elems(words, rw, form.lanes, span)
		if rIsSrc {
			return []ir.Stmt{ptxSt(stChain, sPtr, regs, span)}
		}
		return []ir.Stmt{ptxLd(ldChain, regs, sPtr, span)}
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
	if hints.nc {
		res.Notes = append(res.Notes, "cache='nc' (ld.global.nc)")
	}
	return res, nil
}
