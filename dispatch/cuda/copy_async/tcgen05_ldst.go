package copyasync

// copy_async/tmem<->local: Blackwell tensor memory <-> registers with
// tcgen05.ld / tcgen05.st at warpgroup scope, priority 10.
//
// Mirrors the predicates of TVM python/tvm/backend/cuda/operator/
// tile_primitive/copy_async/tcgen05_ldst.py at PRE abe2526b3e:
// validate_copy_op ("validate_copy_op failed"), exec_scope (warpgroup only:
// "unsupported exec_scope {k}") and storage_scope ("unsupported memory
// scopes src={s} dst={d}; allowed: tmem->local, local->tmem").
//
// tilels does not lower tmem<->local copies: once the predicates pass, the
// emitter declines with "tilels does not lower tmem<->local copies yet
// (tcgen05.ld / tcgen05.st)", so the call is reported instead of lowered.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import "github.com/tilels/tilels/dispatch"

var TmemLocal = dispatch.Variant{
	Op: "copy_async", Name: "tmem<->local", Target: "cuda", Priority: 10,
	When: []dispatch.Pred{
		{Name: "validate_copy_op", Check: common.IsValidCopy},
		{Name: "exec_scope", Check: common.ExecScopeIn("", "warpgroup")},
		{Name: "storage_scope", Check: common.ScopeAllowed(tmemLocalPairs)},
	},
	Emit: func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
		return nil, c.Decline(c.Span(), "tilels does not lower tmem<->local copies yet (tcgen05.ld / tcgen05.st)")
	},
}

var tmemLocalPairs = []common.ScopePair{{Src: "tmem", Dst: "local"}, {Src: "local", Dst: "tmem"}}
