package main

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestPerfDirectory: with several inputs, --perf computes an input's
// memory figures while the next one is lowered, on a goroutine kept
// between inputs; the diagnostics, the outputs and the exit status are
// those of each input lowered alone, in input order (the output is the
// run's without --perf).
func TestPerfDirectory(t *testing.T) {
	dir := t.TempDir()
	var inputs []string
	srcs := []string{
		"../../testdata/perf/shared_conflicts.py",
		"../../testdata/examples/copy_gmem_smem.py",
		"../../testdata/examples/copy_reg.py",
		"../../testdata/perf/shared_conflicts.py",
		"../../testdata/examples/ewise_sqrt.py",
	}
	for i := range 19 {
		src := srcs[i%len(srcs)]
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, fmt.Sprintf("k%d_%s", len(inputs), filepath.Base(src)))
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, name)
	}
	var wantErr strings.Builder
	wantCode := 0
	for _, in := range inputs {
		code, _, stderr := runCLI("--lower", in, "--perf", "--fail-on", "warning", "--emit", "tirx")
		wantCode = max(wantCode, code)
		wantErr.WriteString(stderr)
	}
	// the output does not depend on --perf
	_, wantOut, _ := runCLI(append(append([]string{"--lower"}, inputs...), "--emit", "tirx")...)
	if !strings.Contains(wantErr.String(), "perf/bank-conflicts") {
		t.Fatalf("no performance warning to keep in order:\n%s", wantErr.String())
	}
	code, stdout, stderr := runCLI(append(append([]string{"--lower"}, inputs...), "--perf", "--fail-on", "warning", "--emit", "tirx")...)
	if code != wantCode {
		t.Errorf("exit %d, want %d", code, wantCode)
	}
	if stderr != wantErr.String() {
		t.Errorf("stderr differs from the inputs lowered one by one:\n%s\nwant\n%s", stderr, wantErr.String())
	}
	if stdout != wantOut {
		t.Errorf("stdout differs from the run without --perf:\n%s\nwant\n%s", stdout, wantOut)
	}
}
