package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/lower"
)

// fakeNVCC is the stand-in toolchain of perf/machine/testdata/fake: fixed
// figures (40 registers, 4096 bytes smem, 8 bytes spilled, 1 barrier; two
// LDS.128 and one STG.E.128 per kernel).
func fakeNVCC(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../perf/machine/testdata/fake/nvcc")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the disk cache
	return p
}

type machineDoc struct {
	Files []struct {
		Kernels []struct {
			Name    string
			Machine *struct {
				Source             string
				Registers          int
				SpillStoreBytes    int `json:"spill_store_bytes"`
				StaticSharedBytes  int `json:"static_shared_bytes"`
				DynamicSharedBytes int `json:"dynamic_shared_bytes"`
				Threads            int
				Occupancy          *struct {
					BlocksPerSM int `json:"blocks_per_sm"`
					WarpsPerSM  int `json:"warps_per_sm"`
					Limit       string
				}
				SASSMemoryOps map[string]int `json:"sass_memory_ops"`
			}
		}
	}
}

// TestEmitMachineFake runs --emit ptx, --emit sass and --machine through
// the fake toolchain: the output is the compiler's, per kernel under a
// header, and the JSON record carries its figures.
func TestEmitMachineFake(t *testing.T) {
	nvcc := fakeNVCC(t)
	code, out, stderr := runCLI("--lower", example, "--emit", "ptx", "--nvcc", nvcc)
	if code != 0 || !strings.HasPrefix(out, "// ===== kernel ") || !strings.Contains(out, ".visible .entry ") ||
		!strings.Contains(out, "40 regs · 8 B spilled · 4 KB smem · ") || !strings.Contains(out, "nvcc 99.1.2") {
		t.Errorf("--emit ptx: exit %d, stderr %q, out:\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI("--lower", example, "--emit", "sass", "--nvcc", nvcc)
	if code != 0 || !strings.Contains(out, "LDS.128 R4, [R2]") || !strings.Contains(out, "// ===== kernel ") {
		t.Errorf("--emit sass: exit %d, stderr %q, out:\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI("--lower", example, "--emit", "json", "--machine", "--nvcc", nvcc)
	var doc machineDoc
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("--machine: exit %d, %v, stderr %q", code, err, stderr)
	}
	n := 0
	for _, k := range doc.Files[0].Kernels {
		m := k.Machine
		if m == nil {
			t.Errorf("kernel %s: no machine record", k.Name)
			continue
		}
		n++
		if m.Source != "nvcc 99.1.2" || m.Registers != 40 || m.SpillStoreBytes != 8 || m.StaticSharedBytes != 4096 ||
			m.Occupancy == nil || m.Occupancy.BlocksPerSM < 1 || m.SASSMemoryOps["LDS.128"] != 2 || m.SASSMemoryOps["LDS"] != 0 {
			t.Errorf("kernel %s: %+v occupancy %+v", k.Name, *m, m.Occupancy)
		}
	}
	if n == 0 {
		t.Errorf("no kernel in %s", out)
	}
	// Without --machine the record is null and nothing is compiled.
	_, out, _ = runCLI("--lower", example, "--emit", "json")
	if !strings.Contains(out, `"machine": null`) || strings.Contains(out, `"registers"`) {
		t.Errorf("--emit json without --machine has machine figures")
	}
}

// TestEmitMachineFailed: a file nvcc rejects (the fake nvcc rejects a
// kernel named tilels_fake_error) prints nvcc's complaint and exits 1;
// its JSON records keep machine null.
func TestEmitMachineFailed(t *testing.T) {
	nvcc := fakeNVCC(t)
	src, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	k := filepath.Join(t.TempDir(), "k.py")
	if err := os.WriteFile(k, []byte(strings.Replace(string(src), "def roundtrip(", "def tilels_fake_error(", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("--lower", k, "--emit", "sass", "--nvcc", nvcc)
	if code != 1 || out != "" || !strings.Contains(stderr, "failed (exit status 1)") || !strings.Contains(stderr, "the fake nvcc was asked to fail") {
		t.Errorf("exit %d, out %q, stderr %q", code, out, stderr)
	}
	code, out, _ = runCLI("--lower", k, "--emit", "json", "--machine", "--nvcc", nvcc)
	if code != 1 || !strings.Contains(out, `"machine": null`) {
		t.Errorf("--machine: exit %d, out %s", code, out)
	}
}

func TestEmitMachineUsage(t *testing.T) {
	nvcc := fakeNVCC(t)
	missing := filepath.Join(t.TempDir(), "nvcc")
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--lower", example, "--emit", "ptx", "--nvcc", missing}, "--emit ptx: nvcc " + missing + " (from --nvcc) does not run"},
		{[]string{"--lower", example, "--emit", "cuda", "--machine"}, "--machine needs --emit json"},
		{[]string{"--lower", example, "--emit", "cuda", "--nvcc", nvcc}, "--nvcc needs --machine or --emit ptx/sass"},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.err) {
			t.Errorf("tilels %q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.err)
		}
	}
}

// TestEmitMachineReal compiles the example with the nvcc of $TILELS_NVCC
// (CI: the pinned wheel). Without one, asking for PTX is refused with a
// one-line reason that names the ways to give one.
func TestEmitMachineReal(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	comp, why := lower.FindMachine("", "", nil, 1)
	if comp == nil {
		t.Logf("no nvcc: checking the refusal (%s)", why)
		code, _, stderr := runCLI("--lower", example, "--emit", "ptx")
		if code != 2 || !strings.Contains(stderr, "--emit ptx: no nvcc") || !strings.Contains(stderr, "tilels.nvcc") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
		return
	}
	code, out, stderr := runCLI("--lower", example, "--emit", "ptx")
	if code != 0 || !strings.Contains(out, ".visible .entry") || !strings.Contains(out, "ld.global") {
		t.Errorf("--emit ptx with %s: exit %d, stderr %q", comp.Tool.NVCC, code, stderr)
	}
	code, out, stderr = runCLI("--lower", example, "--emit", "json", "--machine")
	var doc machineDoc
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("--machine: exit %d, %v, stderr %q", code, err, stderr)
	}
	for _, k := range doc.Files[0].Kernels {
		m := k.Machine
		if m == nil || m.Registers == 0 || m.Occupancy == nil || m.Occupancy.BlocksPerSM == 0 {
			t.Errorf("kernel %s: machine %+v", k.Name, m)
			continue
		}
		// A copy through shared memory loads and stores global memory.
		if comp.Tool.Disasm != "" && (m.SASSMemoryOps == nil || len(m.SASSMemoryOps) == 0) {
			t.Errorf("kernel %s: no SASS memory instructions counted", k.Name)
		}
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "tilels", "machine")); err != nil {
		t.Errorf("nothing was cached on disk: %v", err)
	}
}
