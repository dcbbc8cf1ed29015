package compose_op

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// emitBinaryChain is compose_op/binary_chain.py (binary_chain_trn):
// output = (data op0 operand0) op1 operand1 as nki.scalar_tensor_scalar
// or nki.scalar_tensor_tensor; the first operation must be
// tensor-scalar. Args: output, data, operand0, operand1, op0, op1,
// reverse1.
func emitBinaryChain(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return common.Guard(c, func() *dispatch.Result {
		an := common.NewAnalyzer(c)
		out := common.ReadRegion(c, an, 0)
		srcs := []common.Operand{common.ReadOperand(c, an, 1), common.ReadOperand(c, an, 2), common.ReadOperand(c, an, 3)}
		g := common.NewGen(an, out, srcs[0].Region, srcs[1].Region, srcs[2].Region)
		inst, types, _ := common.TryNary(an, g, out, srcs, false)
		common.Assert(types[0] == common.TensorScalar, "The first operator must be a tensor scalar operator")
		maxInst, has := common.ConfigInt(c, "max_inst_size")
		if !has {
			maxInst = 512
		}
		inst.BoundSize(maxInst)
		p := out.SizeP()
		g.Bind(out, p, 1, false, false)
		g.Bind(out, inst.Size, inst.Stride, true, false)
		blocks := g.FillBlock(out)
		op0, op1 := common.Opcode(common.OpName(c, 4)), common.Opcode(common.OpName(c, 5))
		g.CheckCoverage(out)
		for _, s := range srcs {
			if s.Region != nil {
				g.CheckCoverage(s.Region)
			}
		}
		fn := "nki.scalar_tensor_tensor"
		if len(types) > 1 && types[1] == common.TensorScalar {
			fn = "nki.scalar_tensor_scalar"
		}
		return common.Lowered(common.Sprintf("%s %s/%s: %d block(s) of %d partitions × %d elements", fn, op0, op1, blocks, p, inst.Size))
	})
}
