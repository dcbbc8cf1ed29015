package common

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
)

// ExecScope is the predicate "exec_scope" every Trainium variant of
// priority 10 registers: the call's scope kind must be "thread".
func ExecScope() dispatch.Pred {
	return dispatch.Pred{Name: "exec_scope", Check: func(c *dispatch.Call) *dispatch.Decline {
		if c.Scope == "thread" {
			return nil
		}
		return &dispatch.Decline{Reason: "unsupported exec_scope " + c.Scope}
	}}
}

// Fail is the reference's fail(msg): a decline of the variant.
func Fail(c *dispatch.Call, msg string) *dispatch.Decline {
	return &dispatch.Decline{Reason: msg, Span: c.Tile.Span}
}

// ConfigInt returns op.config[key] when it is an integer constant; has
// reports whether the key is present at all.
func ConfigInt(c *dispatch.Call, key string) (v int64, has bool) {
	for _, kv := range c.Tile.Config {
		if kv.Key != key {
			continue
		}
		n, ok := ConstInt(kv.Value)
		if !ok {
			Unmodelled("config %s that is not an integer constant", key)
		}
		return n, true
	}
	return 0, false
}

// Lowered is the result of a Trainium variant: tilels decides the call
// as the reference does and states the NKI instruction loops the
// reference emits (the plan), but does not print them.
func Lowered(plan string) *dispatch.Result {
	body := &ir.Block{Stmts: []ir.Stmt{&ir.Comment{Text: "NKI (not printed): " + plan}}}
	return &dispatch.Result{Body: body, Plan: []dispatch.PlanItem{{Key: "nki", Value: plan}}}
}
