package common

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
)

// workspacePrefix is eval.WorkspaceKey: the config entries that carry a
// call's workspace= buffers.
const workspacePrefix = "workspace."

// Workspace returns the buffer the call's workspace= gives for name, nil
// when absent (TrnPrivateBufferAlloc then adds a fitting one: the
// reference's build pipeline runs it before dispatch).
func Workspace(c *dispatch.Call, name string) *ir.Buffer {
	for _, kv := range c.Tile.Config {
		if kv.Key == workspacePrefix+name {
			if b, ok := kv.Value.(*ir.BufferData); ok {
				return b.Buf
			}
		}
	}
	return nil
}

// CheckWorkspace is workspace_utils.check_workspace_buffer for the
// workspace buffer name when the call gives one: its scope, no layout,
// and a shape that covers shape (for PSUM, the dims after the bank dim).
func CheckWorkspace(c *dispatch.Call, name string, shape []int64, scope string) {
	b := Workspace(c, name)
	if b == nil {
		return
	}
	Assert(b.Scope == scope, "workspace buffer must be a %s buffer", scope)
	Assert(b.Layout == nil, "workspace buffer must not have a layout")
	have := b.Shape
	if scope == "trn.psum" {
		if len(have) == 0 {
			Unmodelled("a PSUM workspace buffer without dimensions")
		}
		have = have[1:]
	}
	for i := 0; i < len(have) && i < len(shape); i++ {
		if have[i] < shape[i] {
			Unmodelled("the text of the reference's \"workspace buffer must have enough size\" assertion (it prints TVM shapes)")
		}
	}
}
