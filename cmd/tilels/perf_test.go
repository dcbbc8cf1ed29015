package main

import (
	"strings"
	"testing"
)

// TestPerfFlag: the performance warnings of the memory analysis are
// printed (and fail --fail-on warning) only with --perf; the column read
// of an unswizzled 32x32 fp32 tile is the 8-way conflict of 128-bit
// loads that Nsight Compute measures for it (docs/gpu-results.md).
func TestPerfFlag(t *testing.T) {
	const prog = "../../testdata/perf/shared_conflicts.py"
	code, _, stderr := runCLI("--lower", prog, "--fail-on", "warning")
	if code != 0 || strings.Contains(stderr, "perf/") {
		t.Fatalf("without --perf: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI("--lower", prog, "--perf", "--fail-on", "warning")
	if code != 1 {
		t.Errorf("--perf --fail-on warning: exit %d, want 1", code)
	}
	want := "shared_conflicts.py:26:5: warning[perf/bank-conflicts]: 8-way bank conflicts: 256 shared-memory wavefronts for an ideal of 32"
	if !strings.Contains(stderr, want) {
		t.Errorf("--perf: stderr lacks %q:\n%s", want, stderr)
	}
	if n := strings.Count(stderr, "warning[perf/bank-conflicts]"); n != 1 {
		t.Errorf("--perf: %d bank-conflict warnings, want 1 (only the unswizzled column read):\n%s", n, stderr)
	}
}
