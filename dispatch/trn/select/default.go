// Package select_ is the Trainium select family: variant "default"
// (priority 10, predicate exec_scope) of the reference's
// backend/trn/tile_primitive/select/default.py (select_trn):
// nki.affine_select of a region and a float constant under the affine
// predicate the call's lambda gives, within one dimension's F run.
package select_

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// Variants is the select family.
func Variants() []dispatch.Variant {
	return []dispatch.Variant{{Op: "select", Name: "default", Target: "trn", Priority: 10,
		When: []dispatch.Pred{common.ExecScope()}, Emit: emit}}
}

// emit is select_trn. Args: dst, true_value, false_value, predicate
// (the lambda, which the decision does not read).
func emit(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	if c.Scope != "thread" {
		return nil, common.Fail(c, "requires thread exec_scope for TRN select")
	}
	return common.Guard(c, func() *dispatch.Result {
		an := common.NewAnalyzer(c)
		dst := common.ReadRegion(c, an, 0)
		tv, fv := common.ReadOperand(c, an, 1), common.ReadOperand(c, an, 2)
		if tv.Const == nil && fv.Const == nil {
			common.Unmodelled("the text of the reference's \"expects one of the source to be a float\" assertion (it prints the op)")
		}
		if tv.Const != nil {
			tv, fv = fv, tv
		}
		if tv.Region == nil {
			common.Unmodelled("the text of the reference's \"expects one of the source to be a buffer\" assertion (it prints the op)")
		}
		src := tv.Region
		dl, sl := dst.Layout(), src.Layout()
		if !(dl != nil && sl != nil && dst.Scope() == "trn.sbuf" && src.Scope() == "trn.sbuf" &&
			common.IsTrainiumLayout(sl) && common.IsTrainiumLayout(dl)) {
			common.Assert(false, "scope or layout mismatch, %s vs %s", common.RegionText(dst), common.RegionText(src))
		}
		if !common.SameExtents(src.NonUnit(), dst.NonUnit()) {
			common.Assert(false, "shape or dimension mismatch, %s vs %s", common.RegionText(dst), common.RegionText(src))
		}
		g := common.NewGen(an, dst, src)
		g.Link(dst, src, common.EwiseDimMap(dst, src))
		inst := g.RestrictOneDim(g.Fit(g.MaxInst(dst, nil, 0), src, nil, false))
		maxInst, has := common.ConfigInt(c, "max_inst_size")
		if !has {
			maxInst = 512
		}
		inst.BoundSize(maxInst)
		p := dst.SizeP()
		g.Bind(dst, inst.Size, inst.Stride, true, false)
		g.Bind(dst, p, 1, false, false)
		blocks := g.FillBlock(dst)
		g.CheckCoverage(dst)
		g.CheckCoverage(src)
		return common.Lowered(common.Sprintf("nki.affine_select: %d block(s) of %d partitions × %d elements", blocks, p, inst.Size))
	})
}
