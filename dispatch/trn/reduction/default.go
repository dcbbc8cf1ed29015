// Package reduction is the Trainium reduction family: variant
// "reduction" (priority 0, no predicate) of sum, max and min, the
// reference's backend/trn/tile_primitive/reduction/default.py with
// reduction/utils.py's reduction_trn (dispatch/trn/common Reduction).
package reduction

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// Variants is the reduction family in registration order.
func Variants() []dispatch.Variant {
	var out []dispatch.Variant
	for _, o := range []struct{ name, opcode string }{{"sum", "add"}, {"max", "max"}, {"min", "min"}} {
		out = append(out, dispatch.Variant{Op: o.name, Name: "reduction", Target: "trn", Priority: 0, Emit: emitFor(o.opcode)})
	}
	return out
}

func emitFor(opcode string) func(*dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
		if c.Scope != "thread" {
			return nil, common.Fail(c, "requires Trainium target and thread exec_scope")
		}
		return common.Guard(c, func() *dispatch.Result { return common.Reduction(c, opcode, false, 2, 3) })
	}
}
