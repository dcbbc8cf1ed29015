package memory_test

import (
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// analyze lowers src and returns the memory figures of its first kernel.
func analyze(t *testing.T, src string) (*lower.Result, *memory.Kernel) {
	t.Helper()
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
	if res.HasErrors() || len(res.Kernels) == 0 {
		t.Fatalf("analysis failed: %v", res.Diags)
	}
	return res, res.Kernels[0].Memory()
}

const head = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((32, 32), "float32", scope="shared")
`

func TestDebug(t *testing.T) {
	res, m := analyze(t, head+`    for i in range(32):
        S[tid, i] = A[tid, i]
    T.cuda.cta_sync()
    for i in range(32):
        A[i, tid] = S[i, tid]
# tilels: reference=0.27
`)
	t.Logf("%+v", *m.Total)
	t.Log(lower.ExplainMemory(res, lower.Options{}))
}
