package memory_test

import (
	"strings"
	"testing"
)

// unrollPragmaKernel stores four floats per thread, one per iteration of
// a serial loop of constant bounds; LOOP is the loop's call.
const unrollPragmaKernel = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((128,), "float32", scope="shared")
    for i in LOOP:
        S[tid * 4 + i] = T.float32(0)
    T.cuda.cta_sync()
    A[tid] = S[tid]
# tilels: reference=0.27
`

// TestUnrollPragma: nvcc unrolls a serial loop of four iterations and
// merges its four 32-bit stores into one STS.128; under `#pragma unroll
// 1` (unroll=False, disable_unroll) the loop stays, and so do the four
// stores. `#pragma unroll` and `#pragma unroll 2` leave the model's rule
// (a constant trip count of at most 256: unrolled).
func TestUnrollPragma(t *testing.T) {
	for _, c := range []struct {
		loop   string
		stores int64
	}{
		{"T.serial(4)", 1},
		{"T.serial(4, unroll=True)", 1},
		{"T.serial(4, unroll=2)", 1},
		{"T.serial(4, unroll=False)", 4},
		{`T.serial(4, annotations={"disable_unroll": True})`, 4},
	} {
		_, ms := analyze(t, strings.Replace(unrollPragmaKernel, "LOOP", c.loop, 1))
		f := ms[0].Total
		if f.Unknown != "" {
			t.Fatalf("%s: unknown %q", c.loop, f.Unknown)
		}
		if f.SharedStore.Instructions != c.stores {
			t.Errorf("%s: %d shared store instructions, want %d", c.loop, f.SharedStore.Instructions, c.stores)
		}
	}
}
