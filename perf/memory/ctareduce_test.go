package memory_test

import (
	"os"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestCTAReduce pins T.cuda.cta_sum's shared traffic by hand, on
// testdata/memory/cta_reduce.py's cta_sum_rows: per CTA of 4 warps, each
// warp's lane 0 stores its partial (4 stores of one lane), warp 0 reads
// the 4 partials (one load of 4 lanes) and stores the total (one store),
// and every warp reads it back (4 broadcast loads): 5 loads and 5 stores
// of one wavefront, twice for 2 CTAs. Nsight Compute measured the same
// (lower/testdata/ncu/measured.txt).
func TestCTAReduce(t *testing.T) {
	src, err := os.ReadFile("../../testdata/memory/cta_reduce.py")
	if err != nil {
		t.Fatal(err)
	}
	res, ms := analyze(t, string(src))
	for i, k := range res.Kernels {
		if k.Name != "cta_sum_rows" {
			continue
		}
		f := ms[i].Total
		if f.Unknown != "" {
			t.Fatalf("unknown: %s", f.Unknown)
		}
		one := memory.Shared{Instructions: 10, Wavefronts: 10, Ideal: 10}
		if f.SharedLoad != one || f.SharedStore != one {
			t.Errorf("shared loads %+v, stores %+v; want %+v each", f.SharedLoad, f.SharedStore, one)
		}
		return
	}
	t.Fatal("no kernel cta_sum_rows")
}
