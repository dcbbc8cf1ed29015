package tirxlib

import "github.com/tilels/tilels/dsl/eval"

// composedTileCall is a tile call inside `with Tx.compose_op():`: the
// reference dispatches the composite op, not the call, and tilels does
// not model the composition, so the call is "not modelled" (a warning
// at the call, no dispatch record).
func composedTileCall(ev *eval.Evaluator, c *eval.Call, label string) eval.Value {
	ev.Warnf(c.FnSpan, eval.CodeUnresolved, "not modelled: %s inside `with Tx.compose_op():` (the reference dispatches the composite op, which tilels does not model)", label)
	return eval.Poison(c.At)
}
