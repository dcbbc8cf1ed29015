package unary

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// emitBiasScale is unary_with_bias_scale_trn (unary/with_bias_scale.py):
// nki.activation(opcode) of src·scale + bias, the bias a constant (a
// const_bias SBUF tile TrnPrivateBufferAlloc adds) or a region broadcast
// as try_find_inst_nary decides.
func emitBiasScale(opcode string) func(*dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
		if c.Scope != "thread" {
			return nil, common.Fail(c, "requires Trainium target and thread exec_scope")
		}
		return common.Guard(c, func() *dispatch.Result {
			an := common.NewAnalyzer(c)
			dst := common.ReadRegion(c, an, 0)
			src := common.ReadOperand(c, an, 1)
			bias := common.ReadOperand(c, an, 2)
			if src.Region == nil {
				common.Unmodelled("%s of a constant", opcode)
			}
			g := common.NewGen(an, dst, src.Region, bias.Region)
			var inst *common.Inst
			if bias.Region != nil {
				inst, _, _ = common.TryNary(an, g, dst, []common.Operand{src, bias}, false)
			} else {
				inst = common.TryUnary(g, dst, src.Region)
			}
			return finish(c, g, dst, src.Region, bias.Region, inst, "nki.activation "+opcode, bias.Region == nil)
		})
	}
}
