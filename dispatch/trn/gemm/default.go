// Package gemm is the Trainium gemm family: one variant, "default"
// (priority 10), of the reference's backend/trn/tile_primitive/gemm/
// default.py (matmul_trn; 0.25–0.27).
package gemm

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dispatch/trn/common"
	"github.com/tilels/tilels/ir"
)

// Variants is the gemm family in registration order.
func Variants() []dispatch.Variant {
	return []dispatch.Variant{{Op: "gemm", Name: "default", Target: "trn", Priority: 10,
		When: []dispatch.Pred{common.ExecScope()}, Emit: emit}}
}

type kind int

const (
	kindA kind = iota
	kindB
	kindC
)

// pfDims is get_pf_dim_from_buffer_region: the partition (contracted or
// output-row) and free dimension of a 2-D operand, checked against its
// whole-buffer layout.
func pfDims(r *common.Region, k kind, transposed bool) (p, f int) {
	var nonUnit []int
	for i := range r.Buf.Shape {
		if c, ok := r.ExtAff[i].Const(); !ok || c != 1 {
			nonUnit = append(nonUnit, i)
		}
	}
	common.Assert(len(nonUnit) == 2, "Only 2D matrix is supported for gemm")
	shard, seps := common.Group(r)
	switch k {
	case kindA:
		p, f = nonUnit[1], nonUnit[0]
	case kindB:
		p, f = nonUnit[0], nonUnit[1]
	default:
		common.Assert(!transposed, "Transposed C is implemented by swapping lhs and rhs. No need to specify by user.")
		has := false
		for i := seps[nonUnit[0]]; i < seps[nonUnit[0]+1]; i++ {
			has = has || shard[i].Axis == layout.P
		}
		p, f = nonUnit[1], nonUnit[0]
		if has {
			p, f = nonUnit[0], nonUnit[1]
		}
	}
	if transposed {
		p, f = f, p
	}
	prod := int64(1)
	for i := seps[p]; i < seps[p+1]; i++ {
		if shard[i].Axis == layout.P {
			prod *= shard[i].Extent
		}
	}
	if prod != r.SizeP() {
		common.Assert(false, "Accumulation dimension and output non-streaming dimension must contain whole P dimension. However, the %d dimension of %s does not.", p, common.RegionText(r))
	}
	for i := seps[f]; i < seps[f+1]; i++ {
		it := shard[i]
		if !(it.Axis == layout.F || it.Axis == layout.Bank || it.Extent == 1) {
			common.Assert(false, "Spatial dimension must not contain P. However, the %d dimension of %s does.", f, common.RegionText(r))
		}
	}
	return p, f
}

func boolArg(c *dispatch.Call, i int) bool {
	if i >= len(c.Tile.Args) || c.Tile.Args[i] == nil {
		return false
	}
	n, ok := common.ConstInt(c.Tile.Args[i])
	if !ok {
		common.Unmodelled("argument %d of gemm, which is not a constant", i)
	}
	return n != 0
}

func floatArg(c *dispatch.Call, i int, def float64) float64 {
	if i >= len(c.Tile.Args) || c.Tile.Args[i] == nil {
		return def
	}
	switch x := c.Tile.Args[i].(type) {
	case *ir.FloatImm:
		return x.Value
	case *ir.IntImm:
		return float64(x.Value)
	}
	common.Unmodelled("argument %d of gemm, which is not a constant", i)
	return 0
}

// emit is matmul_trn: C (PSUM, or SBUF through a PSUM accumulator) +=
// A·B with nki.matmul over the 128 partitions of the contracted
// dimension; A and B in SBUF with Trainium layouts of the same partition
// size; the instruction's free size is B's largest F run that C's
// layout continues, at most 512.
func emit(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	if c.Scope != "thread" {
		return nil, common.Fail(c, "requires Trainium target and thread exec_scope")
	}
	return common.Guard(c, func() *dispatch.Result {
		an := common.NewAnalyzer(c)
		D, A, B, C := common.ReadRegion(c, an, 0), common.ReadRegion(c, an, 1), common.ReadRegion(c, an, 2), common.ReadRegion(c, an, 3)
		tA, tB := boolArg(c, 4), boolArg(c, 5)
		common.Assert(floatArg(c, 6, 1) == 1 && floatArg(c, 7, 0) == 0, "Only alpha=1 and beta=0 are supported")
		if !common.SameRegion(D, C) {
			common.Unmodelled("the text of assert_structural_equal's error (D and C differ)")
		}
		al, bl, cl := A.Layout(), B.Layout(), C.Layout()
		valid := al != nil && bl != nil && cl != nil && A.Buf.Dtype == B.Buf.Dtype &&
			A.Scope() == "trn.sbuf" && B.Scope() == "trn.sbuf" &&
			(C.Scope() == "trn.psum" || C.Scope() == "trn.sbuf") &&
			common.IsTrainiumLayout(al) && common.IsTrainiumLayout(bl) && common.IsTrainiumLayout(cl) &&
			A.SizeP() == B.SizeP()
		common.Assert(valid, "Invalid buffer layout and scope")
		lp, lf := pfDims(A, kindA, tA)
		rp, rf := pfDims(B, kindB, tB)
		ap, af := pfDims(C, kindC, false)
		if ap > af {
			lp, rp = rp, lp
			lf, rf = rf, lf
			A, B = B, A
		}
		check := func(x *common.Region, dx int, y *common.Region, dy int, what string) {
			if !common.Equal(x.ExtAff[dx], y.ExtAff[dy]) {
				common.Assert(false, "%s dimension must match, but the %d dimension of %s != the %d dimension of %s", what, dx, common.RegionText(x), dy, common.RegionText(y))
			}
		}
		check(A, lp, B, rp, "Reduction")
		check(A, lf, C, ap, "Spatial")
		check(B, rf, C, af, "Spatial")
		g := common.NewGen(an, A, B, C)
		g.Link(A, B, map[int]int{lp: rp})
		g.Link(B, C, map[int]int{rf: af})
		g.Link(A, C, map[int]int{lf: ap})
		inst := g.Fit(g.MaxInst(B, []int{rf}, 0), C, []int{af}, false)
		inst.BoundSize(512)
		g.Bind(B, inst.Size, inst.Stride, true, false)
		g.Bind(C, C.SizeP(), 1, false, false)
		g.Bind(A, A.SizeP(), 1, false, false)
		red := g.FillBlock(A, lp)
		lb := g.FillBlock(A, lf)
		rb := g.FillBlock(B, rf)
		if C.Scope() == "trn.sbuf" {
			common.CheckWorkspace(c, "acc_psum", []int64{A.SizeP(), 512}, "trn.psum", true)
			common.CheckPrivatePsum(c, C.SizeP(), A.SizeP())
		}
		g.CheckCoverage(A)
		g.CheckCoverage(B)
		g.CheckCoverage(C)
		out := "C in PSUM"
		if C.Scope() == "trn.sbuf" {
			out = "C in SBUF through a PSUM accumulator (nki.tensor_copy)"
		}
		return common.Lowered(common.Sprintf("nki.matmul: %d×%d×%d block(s) of %d partitions × %d × %d; %s", lb, rb, red, A.SizeP(), C.SizeP(), inst.Size, out))
	})
}
