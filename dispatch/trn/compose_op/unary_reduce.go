package compose_op

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// emitUnaryReduce is compose_op/unary_reduce.py (unary_reduce_trn):
// nki.activation_reduce, the activation of unary_input·scale + bias into
// unary_output with its reduction over reduce_axes into reduce_output,
// in two stages (partial_reduce) when the reduced axes need several
// instructions. Args: unary_output, reduce_output, unary_input,
// unary_op, reduce_op, bias, scale, reduce_axes.
func emitUnaryReduce(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return common.Guard(c, func() *dispatch.Result {
		an := common.NewAnalyzer(c)
		out, red, in := common.ReadRegion(c, an, 0), common.ReadRegion(c, an, 1), common.ReadRegion(c, an, 2)
		bias := common.ReadOperand(c, an, 5)
		axes := common.Axes(c, 7, len(out.Buf.Shape))
		g := common.NewGen(an, out, in, bias.Region, red)
		g.Link(out, red, common.ReductionDimMap(out, red, axes))
		var inst *common.Inst
		if bias.Region != nil {
			inst, _, _ = common.TryNary(an, g, out, []common.Operand{{Region: in}, bias}, false, axes...)
		} else {
			inst = common.TryUnary(g, out, in, axes...)
		}
		if m, has := common.ConfigInt(c, "max_inst_size"); has {
			inst.BoundSize(m)
		}
		p := out.SizeP()
		g.Bind(out, p, 1, false, false)
		g.Bind(out, inst.Size, inst.Stride, true, false)
		rb := g.FillBlock(out, axes...)
		sb := g.FillBlock(out)
		if rb != 1 {
			common.CheckWorkspace(c, "partial_reduce", []int64{red.SizeP(), rb}, "trn.sbuf", false)
		}
		uop, rop := common.Opcode(common.OpName(c, 3)), common.Opcode(common.OpName(c, 4))
		if bias.Region == nil {
			common.CheckWorkspace(c, "const_bias", []int64{p, inst.Size}, "trn.sbuf", true)
		}
		g.CheckCoverage(in)
		g.CheckCoverage(out)
		if rb == 1 {
			g.CheckCoverage(red)
		}
		if bias.Region != nil {
			g.CheckCoverage(bias.Region)
		}
		if rb != 1 && red.Bounded {
			g.CheckCoverage(red)
		}
		return common.Lowered(common.Sprintf("nki.activation_reduce %s/%s: %d block(s) of %d partitions × %d elements, %s", uop, rop, sb, p, inst.Size, twoStage(rb)))
	})
}
