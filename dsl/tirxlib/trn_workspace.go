package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
	"strings"

	"github.com/tilels/tilels/ir"
)

// WorkspaceKey prefixes the config entries that carry a Trainium call's
// workspace= buffers ("workspace.acc_psum"): the Trainium variants check
// them as the reference's check_workspace_buffer does
// (dispatch/trn/common).
const WorkspaceKey = "workspace."

// trnWorkspace records workspace={name: buffer} of a tile call whose
// workspace buffers are all Trainium buffers (trn.* scopes) as config
// entries WorkspaceKey+name. Other workspaces (CUDA) are not recorded, as
// before: no CUDA variant reads them.
func trnWorkspace(ev *eval.Evaluator, tc *ir.TileCall, k eval.Kwarg) {
	d, ok := k.V.(*eval.DictV)
	if !ok {
		return
	}
	var kvs []ir.KV
	for i, kv := range d.Keys {
		name, ok := kv.(*eval.StrV)
		b, isBuf := d.Vals[i].(*eval.BufferV)
		if !ok || !isBuf || !strings.HasPrefix(b.B.Scope, "trn.") {
			return
		}
		kvs = append(kvs, ir.KV{Key: WorkspaceKey + name.V, Value: &ir.BufferData{Buf: b.B, Span: b.At}, Span: k.At})
	}
	tc.Config = append(tc.Config, kvs...)
}
