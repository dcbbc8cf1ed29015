package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// hostLets is a kernel whose grid and loop bound are host lets, as
// flash_attention4.py's cta_count; NCTAS and ITERS are their values.
const hostLets = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (65536,), "float32")
    B = T.match_buffer(B_ptr, (65536,), "float32")
    max_ctas: T.let = 4
    cta_count: T.let = T.min(max_ctas, NCTAS)
    iters: T.let = ITERS
    T.device_entry()
    bx = T.cta_id([cta_count])
    tid = T.thread_id([32])
    S = T.alloc_buffer((1024,), "float32", scope="shared")
    tile = T.alloc_local((1,), "int32")
    tile[0] = bx
    while tile[0] < 8:
        for i in range(iters):
            S[tid * 2 + i] = A[tile[0] * 1024 + i * 32 + tid]
        T.cuda.cta_sync()
        B[tile[0] * 1024 + tid] = S[tid * 2]
        tile[0] = tile[0] + cta_count
# tilels: reference=0.27
`

func hostKernel(nctas, iters string) string {
	return strings.NewReplacer("NCTAS", nctas, "ITERS", iters).Replace(hostLets)
}

// TestHostConsts: host lets that fold to constants are known in the grid
// and the device code. With min(4, 3) = 3 CTAs looping over 8 tiles
// (3, 3 and 2 tiles), 2 iterations a tile: 16 tiles' worth of 2-way
// conflicting stores (S[tid*2 + i], 2 wavefronts each).
func TestHostConsts(t *testing.T) {
	_, ms := analyze(t, hostKernel("3", "2"))
	f := ms[0].Total
	if f.Unknown != "" {
		t.Fatalf("unknown: %s", f.Unknown)
	}
	if f.CTAs != 3 {
		t.Errorf("%d CTAs, want min(4, 3) = 3", f.CTAs)
	}
	want := memory.Shared{Instructions: 16, Wavefronts: 32, Ideal: 16, Conflicts: 16}
	if f.SharedStore != want {
		t.Errorf("shared stores %+v, want %+v", f.SharedStore, want)
	}
}

// TestHostConstsKeyed: two kernels alike but for a host let's value are
// two content-cache entries (the second is not given the first's figures).
func TestHostConstsKeyed(t *testing.T) {
	memory.ResetCache()
	var stores []int64
	for _, iters := range []string{"2", "4"} {
		res := lower.Analyze(source.NewFile("k.py", []byte(hostKernel("3", iters))), lower.Options{})
		if len(res.Kernels) != 1 {
			t.Fatalf("kernels: %d", len(res.Kernels))
		}
		k := res.Kernels[0]
		m := memory.Cached(k.Lowered, k.Launch)
		stores = append(stores, m.Total.SharedStore.Instructions)
	}
	if stores[0] != 16 || stores[1] != 32 {
		t.Errorf("shared store instructions %v, want [16 32] (2 and 4 iterations a tile)", stores)
	}
}
