package compose_op

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// emitComposeOp is compose_op.py (0.25, 0.26): the generic composite op,
// which tilels' evaluator does not build; a call that reaches it is not
// decided.
func emitComposeOp(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return nil, &dispatch.Decline{Reason: "tilels does not model compose_op (0.25, 0.26 compose_op.py)", Span: c.Tile.Span}
}

var _ = common.Fail
