package lower

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPerfProgramsReference runs the host reference of every program under
// testdata/perf/ (the access patterns scripts/gpu-check profiles with
// Nsight Compute): each of their kernels copies A to B through shared
// memory or registers, so the reference must leave B equal to A. The GPU
// run of the same harness compares the kernels with this reference.
func TestPerfProgramsReference(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "perf", "*.py"))
	if len(paths) == 0 {
		t.Fatal("no programs under testdata/perf")
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".py")
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		runs := runReference(t, name, src)
		if len(runs) == 0 {
			t.Errorf("%s: no kernels", name)
		}
		for k, r := range runs {
			if r.race != "" {
				t.Errorf("%s: %s: race: %s", name, k, r.race)
			}
			a, b := r.in["A"], r.out["B"]
			if len(a) == 0 || string(a) != string(b) {
				t.Errorf("%s: %s: B is not a copy of A (%d, %d bytes)", name, k, len(a), len(b))
			}
		}
	}
}
