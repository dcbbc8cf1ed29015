// Package compose_op is the Trainium compose-op family, variant
// "default" (priority 10, predicate exec_scope) of unary_reduce,
// binary_reduce, binary_chain and reduce_negate, one file each as the
// reference's backend/trn/tile_primitive/compose_op/; 0.25 and 0.26 also
// register compose_op itself (compose_op.py).
package compose_op

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
	"github.com/tilels/tilels/release"
)

// Variants is the family in registration order (compose_op/__init__.py).
func Variants() []dispatch.Variant {
	v := func(op string, emit func(*dispatch.Call) (*dispatch.Result, *dispatch.Decline)) dispatch.Variant {
		return dispatch.Variant{Op: op, Name: "default", Target: "trn", Priority: 10,
			When: []dispatch.Pred{common.ExecScope()}, Emit: emit}
	}
	composeOp := v("compose_op", emitComposeOp)
	composeOp.Releases = release.Until(release.R026)
	return []dispatch.Variant{
		composeOp,
		v("unary_reduce", emitUnaryReduce),
		v("binary_chain", emitBinaryChain),
		v("reduce_negate", emitReduceNegate),
		v("binary_reduce", emitBinaryReduce),
	}
}

// twoStage is the plan line of a reduction split over reduction blocks.
func twoStage(red int64) string {
	if red == 1 {
		return "one stage"
	}
	return common.Sprintf("two stages through partial_reduce (%d partial results)", red)
}
