package memory_test

import (
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestScalarLoads: the element loads of an unrolled bundle join as nvcc
// joins them (halfloads.go): beside half math into LDS.64 at most (hsqrt: two
// per bundle of 8 halves, where a copy reads one LDS.128), beside a half
// division not at all (8 per operand), beside f32 math (native) into
// LDS.128 as before. The counts Nsight Compute measured for such kernels
// are in testdata/ncu/measured.txt (TestNcuAgreement, r054, r070 and 13
// more).
func TestScalarLoads(t *testing.T) {
	src := `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def bundles(A_ptr: T.handle, F_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float16")
    F = T.match_buffer(F_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    X_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    Y_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    F_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    G_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    Tx.cta.copy(Y_s[:, :], A[:, :])
    Tx.cta.copy(F_s[:, :], F[:, :])
    Tx.cta.copy(G_s[:, :], F[:, :])
    T.cuda.cta_sync()
    Tx.cta.sqrt(X_s[:, :], X_s[:, :])
    Tx.cta.fdiv(X_s[:, :], X_s[:, :], Y_s[:, :])
    Tx.cta.add(F_s[:, :], F_s[:, :], G_s[:, :])
# tilels: reference=0.25
`
	res, _ := analyze(t, src)
	k := res.Kernels[0]
	on, off := withAndWithout(k, memory.SetScalarRule)
	// the calls in order: four copies, sqrt, fdiv, add
	want := []struct {
		op    string
		times int64 // shared load instructions with the rule over without
	}{{"sqrt", 2}, {"fdiv", 8}, {"add", 1}}
	for i, w := range want {
		d := k.Calls[4+i]
		if d.Call.Op != w.op {
			t.Fatalf("call %d is %s, want %s", 4+i, d.Call.Op, w.op)
		}
		a, b := on.Calls[d.Call], off.Calls[d.Call]
		if a == nil || b == nil || a.Unknown != "" || b.Unknown != "" {
			t.Fatalf("%s: no figures", w.op)
		}
		if got := a.SharedLoad.Instructions; b.SharedLoad.Instructions == 0 || got != w.times*b.SharedLoad.Instructions {
			t.Errorf("%s: %d shared load instructions, %d without the rule: want %d times", w.op, got, b.SharedLoad.Instructions, w.times)
		}
		// the stores of the bundle are vectorized either way
		if a.SharedStore != b.SharedStore {
			t.Errorf("%s: shared stores %+v, %+v without the rule", w.op, a.SharedStore, b.SharedStore)
		}
	}
}
