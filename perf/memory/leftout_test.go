package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// TestLeftOut: a statement of the kernel the evaluation leaves out (an
// eval/unresolved warning) that may access memory is marked in the IR
// (ir.Comment.LeftOut); reached, it makes the kernel body's figures
// unknown, with the statement, while the calls' own figures stay; in a
// branch no thread takes, or a profiler's hook without buffer elements,
// it changes nothing.
func TestLeftOut(t *testing.T) {
	const head = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S as Spec, TileLayout
import iket


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 32), "float32")
    B = T.match_buffer(B_ptr, (64, 32), "float32")
    T.device_entry()
    tid = T.thread_id([32])
    S = T.alloc_buffer((64, 32), "float32", scope="shared")
    Tx.warp.copy(S[0:64, 0:32], A[0:64, 0:32])
    T.cuda.cta_sync()
`
	for _, tc := range []struct {
		name, body, want string
	}{
		{"reached", "    B[tid, 0] = S[tid, iket.column()]\n", "`B[tid, 0] = S[tid, iket.column()]` is not modelled by tilels (an eval/unresolved warning) and may access memory"},
		{"in a branch no thread takes", "    if tid > 64:\n        B[tid, 0] = S[tid, iket.column()]\n", ""},
		{"a profiler's hook", "    iket.range_end(iket.token())\n", ""},
		// a value an earlier statement's warning poisoned: the store
		// that needs it is left out too, without a warning of its own
		// (flash_attention_backward.py's stores through a layout the
		// evaluation could not build were silently missing)
		{"a poisoned value", "    L = TileLayout(Spec[(tid + 1,):(1,)])\n    B[tid, 0] = S[tid, L.apply(0)[\"m\"]]\n", "`B[tid, 0] = S[tid, L.apply(0)[\"m\"]]` is not modelled by tilels (an eval/unresolved warning) and may access memory"},
	} {
		src := head + tc.body + "# tilels: reference=0.27\n"
		res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
		if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Fatalf("%s: not lowered: %v", tc.name, res.Diags)
		}
		k := res.Kernels[0]
		m := k.Memory()
		if m.Body.Unknown != tc.want || m.Total.Unknown != tc.want {
			t.Errorf("%s: body unknown %q, total %q; want %q", tc.name, m.Body.Unknown, m.Total.Unknown, tc.want)
		}
		if f := m.Calls[k.Calls[0].Call]; f == nil || f.Unknown != "" || f.SharedStore.Instructions == 0 {
			t.Errorf("%s: the copy's figures %+v", tc.name, f)
		}
		if !strings.Contains(strings.Join(diagTexts(res), "\n"), "eval/unresolved") {
			t.Errorf("%s: no eval/unresolved warning: %v", tc.name, res.Diags)
		}
	}
}

func diagTexts(res *lower.Result) []string {
	var out []string
	for _, d := range res.Diags {
		out = append(out, d.Code+": "+d.Message)
	}
	for _, k := range res.Kernels {
		for _, d := range k.Diags {
			out = append(out, d.Code+": "+d.Message)
		}
	}
	return out
}
