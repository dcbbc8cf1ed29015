package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestUserShuffleXor: T.tvm_warp_shuffle_xor in a kernel's own code
// (mega_moe.py's warp_reduce_max_4: 150 statements that were left out)
// evaluates to the same IR op the lowering uses; a butterfly reduction
// over it counts the warp's one load and one store, and its CUDA is
// __shfl_xor_sync.
func TestUserShuffleXor(t *testing.T) {
	const src = `from tvm.script import tirx as T


@T.prim_func
def xor_max(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "float32")
    B = T.match_buffer(B_ptr, (32,), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.thread_id([32])
    v = T.alloc_local((1,), "float32")
    v[0] = A[lane]
    for s in T.unroll(5):
        v[0] = T.max(v[0], T.tvm_warp_shuffle_xor(0xFFFFFFFF, v[0], 16 >> s, 32, 32))
    B[lane] = v[0]
# tilels: reference=0.27
`
	res, ms := analyze(t, src)
	for _, d := range res.Diags {
		t.Errorf("diagnostic: %s", d.Message)
	}
	for _, d := range res.Kernels[0].Diags {
		if strings.Contains(d.Message, "not modelled") {
			t.Errorf("diagnostic: %s", d.Message)
		}
	}
	f := ms[0].Total
	if f.Unknown != "" || f.GlobalLoad != (memory.Global{Requests: 1, Sectors: 4, IdealSectors: 4}) || f.GlobalStore != (memory.Global{Requests: 1, Sectors: 4, IdealSectors: 4}) {
		t.Errorf("figures %+v", *f)
	}
}
