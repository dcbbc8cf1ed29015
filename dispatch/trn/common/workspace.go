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
// tuple says whether the reference passes shape as a Python tuple (its
// message prints "(128, 512)") or a list ("[128, 2]").
func CheckWorkspace(c *dispatch.Call, name string, shape []int64, scope string, tuple bool) {
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
	covers(have, shape, tuple)
}

// covers asserts that have (a TVM shape, printed "[64, 512]") covers
// want elementwise, with the reference's message.
func covers(have, want []int64, tuple bool) {
	for i := 0; i < len(have) && i < len(want); i++ {
		if have[i] < want[i] {
			w := pyList(want)
			if tuple {
				w = "(" + w[1:len(w)-1] + ")"
			}
			Assert(false, "workspace buffer must have enough size, %s cannot cover %s", pyList(have), w)
		}
	}
}

func pyList(xs []int64) string {
	s := "["
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += Sprintf("%d", x)
	}
	return s + "]"
}

// CheckPrivatePsum is the check of the acc_psum buffer that
// TrnPrivateBufferAlloc adds when the call gives none: it allocates
// (8, P of the destination, 512), which the schedule then checks against
// the P size it needs (the source's or A's), so a destination with fewer
// partitions fails as in the reference.
func CheckPrivatePsum(c *dispatch.Call, dstP, p int64) {
	if Workspace(c, "acc_psum") != nil {
		return
	}
	covers([]int64{dstP, 512}, []int64{p, 512}, true)
}
