package compose_op

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// emitBinaryReduce is compose_op/binary_reduce.py (binary_reduce_trn):
// nki.tensorscalar_reduce, binary_output = input1 op input2 (a constant
// or a broadcast operand: the tensor-tensor form raises "TensorTensor is
// not supported for vector reduce") with its reduction into
// reduce_output. Args: binary_output, reduce_output, binary_input1,
// binary_input2, binary_op, reduce_op, reduce_axes.
func emitBinaryReduce(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return common.Guard(c, func() *dispatch.Result {
		an := common.NewAnalyzer(c)
		out, red := common.ReadRegion(c, an, 0), common.ReadRegion(c, an, 1)
		in1, in2 := common.ReadOperand(c, an, 2), common.ReadOperand(c, an, 3)
		axes := common.Axes(c, 6, len(out.Buf.Shape))
		g := common.NewGen(an, out, in1.Region, in2.Region, red)
		g.Link(out, red, common.ReductionDimMap(out, red, axes))
		inst, types, reverse := common.TryNary(an, g, out, []common.Operand{in1, in2}, false, axes...)
		if m, has := common.ConfigInt(c, "max_inst_size"); has {
			inst.BoundSize(m)
		}
		if types[0] != common.TensorScalar {
			// The reference prints the op call after the colon.
			common.Assert(false, "TensorTensor is not supported for vector reduce: %s", dispatch.CallText(c.Tile))
		}
		if reverse {
			in1, in2 = in2, in1
		}
		p := out.SizeP()
		g.Bind(out, p, 1, false, false)
		g.Bind(out, inst.Size, inst.Stride, true, false)
		rb := g.FillBlock(out, axes...)
		sb := g.FillBlock(out)
		if rb != 1 {
			common.CheckWorkspace(c, "partial_reduce", []int64{red.SizeP(), rb}, "trn.sbuf", false)
		}
		bop, rop := common.Opcode(common.OpName(c, 4)), common.Opcode(common.OpName(c, 5))
		g.CheckCoverage(in1.Region)
		g.CheckCoverage(out)
		if rb == 1 || red.Bounded {
			g.CheckCoverage(red)
		}
		if in2.Region != nil {
			g.CheckCoverage(in2.Region)
		}
		return common.Lowered(common.Sprintf("nki.tensorscalar_reduce %s/%s: %d block(s) of %d partitions × %d elements, %s", bop, rop, sb, p, inst.Size, twoStage(rb)))
	})
}
