package compose_op

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// emitReduceNegate is compose_op/reduce_negate.py: reduction_trn with
// the result negated (nki.tensorreduce negate=True). Args: output,
// input, reduce_op, reduce_axes, accum.
func emitReduceNegate(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return common.Guard(c, func() *dispatch.Result {
		name := common.OpName(c, 2)
		opcode := map[string]string{"sum": "add", "max": "max", "min": "min"}[name]
		if opcode == "" {
			common.Unmodelled("the KeyError text of reduce op %q missing from the reference's optype_table", name)
		}
		return common.Reduction(c, opcode, true, 3, 4)
	})
}
