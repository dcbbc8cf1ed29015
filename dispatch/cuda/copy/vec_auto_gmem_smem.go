package copy

// copy/vec_auto, global <-> shared half, as 0.26.0 and 0.27.0.post1 emit it.
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy/
// vec_auto_gmem_smem.py at 0.27.0.post1. The predicate and the partition
// (align_layouts_gs: [outer, thread, vec] carved from the global side, vec
// from 16 B down to one element) are 0.25's gmem_smem (gmem_smem.go); the
// emission differs:
//
//   - the shared address is recompose_swizzle(s_buf.layout, s_p) applied to
//     (f, tid, 0): the whole swizzle formula over the partition's offset on
//     every round (0.25's signed-stride fast path is gone);
//   - each round is T.ptx["ld.<space>.<tail>"] into a uint32 (u16, u8)
//     scratch of copy_ptx_form's lanes, allocated once before the loop, and
//     T.ptx["st.<space>.<tail>"] out of it, instead of T.cuda.copy_bytes.
//
// 0.26.0 plans the same numbers and moves the same bytes through the same
// instructions; its shared address keeps 0.25's fast path (same addresses,
// other expressions).

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

func emitGmemSmem27(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	src, _ := common.ConstRegion(c, 1)
	dst, _ := common.ConstRegion(c, 0)
	g, s, gIsSrc := src, dst, true
	if src.Buf.Scope != "global" {
		g, s, gIsSrc = dst, src, false
	}
	elemBits := src.Buf.Dtype.Bits
	t := c.ThreadCnt()
	al := AlignLayoutsGS(g, s, elemBits, t, nil)
	gp, sp, v := al.G, al.S, al.Vec
	numBytes := v * int64(elemBits) / 8
	form := copyPtxForm(numBytes)
	ldG, stS := "ld.global."+form.tail, "st.shared."+form.tail
	ldS, stG := "ld.shared."+form.tail, "st.global."+form.tail

	n := layout.Size(sp, nil)
	if n%(t*v) != 0 {
		dispatch.Raise("AssertionError", "partition produced %d elements but thread_cnt(%d) * vec_len(%d) = %d doesn't divide it", n, t, v, t*v)
	}
	totalOuter := n / (t * v)
	applyShape := []int64{totalOuter, t, v}
	span := c.Span()

	var tid ir.Expr = common.Cst(0)
	if t > 1 {
		tid = c.AxisDecl(common.TidAxisForScope[c.Scope])
	}
	sw := layout.BareSwizzle(s.Lay)
	tmp, regs := localTmp("tmp", form, span)
	stmts := []ir.Stmt{&ir.Alloc{Buf: tmp, Span: span}}
	stmts = append(stmts, common.SerialLoop("f", totalOuter, span, func(f ir.Expr) []ir.Stmt {
		coord := []ir.Expr{f, tid, common.Cst(0)}
		gLin := addSym(common.ApplyExpr(gp, coord, applyShape), al.gSym)
		sOff := addSym(common.ApplyExpr(sp, coord, applyShape), al.sSym)
		if sw != nil {
			sOff = common.SwizzleExpr(sw, sOff)
		}
		sPtr := common.PtrOff(s.Buf, sOff, span)
		gPtr := common.PtrOff(g.Buf, gLin, span)
		if gIsSrc {
			return []ir.Stmt{ptxLd(ldG, regs, gPtr, span), ptxSt(stS, sPtr, regs, span)}
		}
		return []ir.Stmt{ptxLd(ldS, regs, sPtr, span), ptxSt(stG, gPtr, regs, span)}
	})...)

	res := &dispatch.Result{
		Body:      &ir.Block{Stmts: stmts, Span: span},
		Vec:       v,
		VecBits:   v * int64(elemBits),
		Outer:     totalOuter,
		Threads:   t,
		Partition: common.PartitionString(gp),
	}
	res.Notes = append(res.Notes, "shared partition "+sp.String())
	if sw != nil {
		res.Notes = append(res.Notes, "swizzle: recompose_swizzle, full formula per iteration")
	}
	return res, nil
}
