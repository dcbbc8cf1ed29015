package memory_test

import (
	"os"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestRuntimeOuterExtent: testdata/memory/runtime_outer_extent.py's
// logits_runtime copies through q, a parameter buffer whose outermost
// extent is a runtime value; addressed row-major by its inner extents
// alone, it counts exactly as logits_static, the same lowered code over a
// static extent, which the GPU check measures. logits_implicit declares
// its extent in the body (rows = T.int32()), given 512 by its bind line:
// its figures are those Nsight Compute measured on an H200
// (lower/testdata/ncu/measured.txt).
func TestRuntimeOuterExtent(t *testing.T) {
	src, err := os.ReadFile("../../testdata/memory/runtime_outer_extent.py")
	if err != nil {
		t.Fatal(err)
	}
	res, ms := analyze(t, string(src))
	byName := map[string]*memory.Figures{}
	for i, k := range res.Kernels {
		byName[k.Name] = ms[i].Total
	}
	d, s, im := byName["logits_runtime"], byName["logits_static"], byName["logits_implicit"]
	if d == nil || s == nil || im == nil {
		t.Fatalf("kernels %v", byName)
	}
	if im.Unknown != "" || im.GlobalLoad != (memory.Global{Requests: 256, Sectors: 4096, IdealSectors: 4096}) || im.GlobalStore != (memory.Global{Requests: 128, Sectors: 2048, IdealSectors: 2048}) {
		t.Errorf("logits_implicit: %+v", *im)
	}
	if d.Unknown != "" || s.Unknown != "" {
		t.Fatalf("unknown: runtime %q, static %q", d.Unknown, s.Unknown)
	}
	if d.SharedLoad != s.SharedLoad || d.SharedStore != s.SharedStore || d.GlobalLoad != s.GlobalLoad || d.GlobalStore != s.GlobalStore {
		t.Errorf("runtime outer extent %+v\nstatic %+v", *d, *s)
	}
	if s.GlobalLoad.Requests == 0 {
		t.Errorf("no global loads counted: %+v", *s)
	}
}
