// Package copy is the Trainium copy family: one variant, "default"
// (priority 10), of the reference's backend/trn/tile_primitive/copy/
// default.py (0.25–0.27; 0.25 keeps it under operator/tile_primitive).
package copy

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// Variants is the copy family in registration order.
func Variants() []dispatch.Variant {
	return []dispatch.Variant{{Op: "copy", Name: "default", Target: "trn", Priority: 10,
		When: []dispatch.Pred{common.ExecScope()}, Emit: emit}}
}

// largestPsumPerBank and maxPsumBanks are workspace_utils' constants.
const (
	largestPsumPerBank = 512
	maxPsumBanks       = 8
)

// emit is copy_trn: between global (a TileLayout) and SBUF/PSUM (a
// Trainium layout), or between SBUF/PSUM buffers, as nki.load, nki.store
// or nki.tensor_copy instruction loops of P partitions × an F run; when
// the partition dims of src and dst differ, a transpose through the
// tensor engine (transpose_schedule). It declines on a shape mismatch and
// raises what the reference raises: "Invalid buffer layout/scope for copy
// operation." and the InstructionGenerator's assertions.
func emit(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	if c.Scope != "thread" {
		return nil, common.Fail(c, "requires thread exec_scope for TRN copy")
	}
	var d *dispatch.Decline
	res, lim := common.Guard(c, func() *dispatch.Result {
		an := common.NewAnalyzer(c)
		dst, src := common.ReadRegion(c, an, 0), common.ReadRegion(c, an, 1)
		sl, dl := src.Layout(), dst.Layout()
		mem := func(s string) bool { return s == "global" || s == "trn.sbuf" || s == "trn.psum" }
		okLayout := func(r *common.Region, l *layout.TileLayout) bool {
			if r.Scope() == "global" {
				return l != nil
			}
			return (r.Scope() == "trn.sbuf" || r.Scope() == "trn.psum") && common.IsTrainiumLayout(l)
		}
		valid := sl != nil && dl != nil && mem(src.Scope()) && mem(dst.Scope()) &&
			(src.Scope() != "global" || dst.Scope() != "global") && okLayout(src, sl) && okLayout(dst, dl)
		if !valid {
			dispatch.Raise("ValueError", "Invalid buffer layout/scope for copy operation.")
		}
		if !common.SameExtents(src.NonUnit(), dst.NonUnit()) {
			d = common.Fail(c, "shape mismatch between src and dst for TRN copy")
			return nil
		}
		dm := common.EwiseDimMap(src, dst)
		g := common.NewGen(an, src, dst)
		g.Link(src, dst, dm)
		if !g.PartitionMatch(src, dst) {
			return transpose(c, g, dst, src)
		}
		var inst *common.Inst
		from := dst
		if common.IsTrainiumLayout(sl) {
			inst = g.Fit(g.MaxInst(src, nil, 0), dst, nil, false)
			from = src
		} else {
			inst = g.Fit(g.MaxInst(dst, nil, 0), src, nil, false)
		}
		fn := "nki.tensor_copy"
		switch {
		case src.Scope() == "global":
			fn = "nki.load"
		case dst.Scope() == "global":
			fn = "nki.store"
		}
		maxInst, has := common.ConfigInt(c, "max_inst_size")
		if fn == "nki.tensor_copy" {
			if !has {
				maxInst = 512
			}
			inst.BoundSize(maxInst)
		} else {
			common.Assert(!has, "max_inst_size is not supported for load/store")
		}
		p := from.SizeP()
		g.Bind(from, p, 1, false, false)
		g.Bind(from, inst.Size, inst.Stride, true, false)
		blocks := g.FillBlock(from)
		g.CheckCoverage(src)
		g.CheckCoverage(dst)
		return common.Lowered(common.Sprintf("%s: %d block(s) of %d partitions × %d elements (stride %d)", fn, blocks, p, inst.Size, inst.Stride))
	})
	if d != nil {
		return nil, d
	}
	return res, lim
}

// transpose is transpose_schedule: the partition dims of dst and src
// differ, so the copy goes through nki.matmul with an identity matrix
// (into PSUM, then nki.tensor_copy to SBUF). The identity and the PSUM
// accumulator are the workspace TrnPrivateBufferAlloc adds before
// dispatch.
func transpose(c *dispatch.Call, g *common.Gen, dst, src *common.Region) *dispatch.Result {
	common.Assert(src.Scope() != "trn.psum", "Transpose on psum buffer is not supported")
	rd, rs := g.MaxInstTranspose(dst, src)
	p := src.SizeP()
	rhsF := p
	g.Bind(src, rs.Size, rs.Stride, true, false)
	g.Bind(dst, rd.Size, rd.Stride, true, true)
	g.Bind(src, p, 1, false, true)
	extend := int64(1)
	if dst.Scope() == "trn.sbuf" {
		maxExtend := g.MaxInst(dst, nil, rd.Stride).Size / rhsF
		perBank := int64(largestPsumPerBank) / rhsF
		switch {
		case maxExtend < perBank:
			extend = maxExtend
		case maxExtend%perBank == 0:
			extend = perBank
		}
		g.Bind(dst, extend, rd.Stride*rd.Size, true, false)
	}
	blocks := g.FillBlock(dst)
	common.CheckWorkspace(c, "identity", []int64{p, rhsF}, "trn.sbuf", true)
	g.CheckCoverage(src)
	if dst.Scope() == "trn.psum" {
		g.CheckCoverage(dst)
		return common.Lowered(common.Sprintf("transpose into PSUM: nki.matmul by identity, %d block(s)", blocks))
	}
	common.CheckWorkspace(c, "acc_psum", []int64{p, largestPsumPerBank}, "trn.psum", true)
	common.CheckPrivatePsum(c, dst.SizeP(), p)
	g.CheckCoverage(dst)
	return common.Lowered(common.Sprintf("transpose: nki.matmul by identity into PSUM, nki.tensor_copy to SBUF; %d block(s), extend %d", blocks, extend))
}
