package memory_test

import (
	"os"
	"testing"
)

// TestRuntimeOuterExtent: testdata/memory/runtime_outer_extent.py's
// logits_runtime copies through q, a parameter buffer whose outermost
// extent is a runtime value; addressed row-major by its inner extents
// alone, it counts exactly as logits_static, the same lowered code over a
// static extent, which the GPU check measures.
func TestRuntimeOuterExtent(t *testing.T) {
	src, err := os.ReadFile("../../testdata/memory/runtime_outer_extent.py")
	if err != nil {
		t.Fatal(err)
	}
	_, ms := analyze(t, string(src))
	d, s := ms[0].Total, ms[1].Total
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
