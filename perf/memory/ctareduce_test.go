package memory_test

import (
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestCTAReduce pins T.cuda.cta_sum's shared traffic by hand: per CTA of
// 4 warps, each warp's lane 0 stores its partial (4 stores of one lane),
// warp 0 reads the 4 partials (one load of 4 lanes) and stores the total
// (one store), and every warp reads it back (4 broadcast loads): 5 loads
// and 5 stores of one wavefront, twice for 2 CTAs. Nsight Compute
// measured the same (lower/testdata/ncu/measured.txt, cta_reduce.py).
func TestCTAReduce(t *testing.T) {
	_, ms := analyze(t, `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    bx = T.cta_id([2])
    tid = T.thread_id([128])
    scratch = T.alloc_buffer((32,), "float32", scope="shared")
    v = T.cuda.cta_sum(A[bx * 128 + tid], 4, scratch.ptr_to([0]))
    B[bx * 128 + tid] = v
# tilels: reference=0.27
`)
	f := ms[0].Total
	if f.Unknown != "" {
		t.Fatalf("unknown: %s", f.Unknown)
	}
	one := memory.Shared{Instructions: 10, Wavefronts: 10, Ideal: 10}
	if f.SharedLoad != one || f.SharedStore != one {
		t.Errorf("shared loads %+v, stores %+v; want %+v each", f.SharedLoad, f.SharedStore, one)
	}
}
