package machine

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The testdata was made with the pinned nvcc 13.5.37 (scripts/setup-nvcc)
// and nvdisasm/cuobjdump 13.5.37: nvcc -arch=sm_90a -O2 -cubin -Xptxas -v
// -keep of the .cu files tilels --lower prints for lower/testdata's
// ldgsts_copy and ldstmatrix_frag, and of a hand-written kernel that
// spills (spill.cu); nvdisasm -c and cuobjdump -sass of the cubins.
func TestParsePtxas(t *testing.T) {
	got := ParsePtxas(read(t, "ldgsts_copy.ptxas.txt"))
	want := []Resources{
		{Symbol: "past_the_end_kernel", Registers: 6, StaticShared: 2056},
		{Symbol: "ldgsts_kernel", Registers: 32, Barriers: 1, StaticShared: 9216},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	sp := ParsePtxas(read(t, "spill.ptxas.txt"))
	if len(sp) != 1 || sp[0] != (Resources{Symbol: "spill_kernel", Registers: 32, StackFrame: 976, SpillStores: 1540, SpillLoads: 1556}) {
		t.Errorf("spill: got %+v", sp)
	}
	// Front-end warnings among the lines change nothing.
	noisy := "k.cu(45): warning #177-D: variable \"x\" was declared but never referenced\n" + read(t, "ldstmatrix_frag.ptxas.txt")
	if got := ParsePtxas(noisy); len(got) != 2 || got[0].Symbol != "frag_wg_cta_kernel" || got[1].Registers != 47 || got[0].Barriers != 1 {
		t.Errorf("ldstmatrix_frag: got %+v", got)
	}
}

func TestSplitPTX(t *testing.T) {
	ptx := read(t, "ldgsts_copy.ptx")
	parts := SplitPTX(ptx)
	if len(parts) != 2 {
		t.Fatalf("got entries %v", keys(parts))
	}
	for name, text := range parts {
		if !strings.HasPrefix(text, "\t// .globl\t"+name+"\n") || !strings.HasSuffix(text, "\n}\n") {
			t.Errorf("%s: PTX does not run from its .globl line to its closing brace:\n%s", name, text)
		}
		if !strings.Contains(ptx, text) {
			t.Errorf("%s: not a piece of the module", name)
		}
	}
	if !strings.Contains(parts["ldgsts_kernel"], "cp.async") || strings.Contains(parts["past_the_end_kernel"], "cp.async.ca") {
		t.Errorf("the pieces are mixed up")
	}
}

// The two disassemblers' texts of one cubin give the same functions and
// the same memory instruction counts; the counts are those of the code.
func TestSASS(t *testing.T) {
	nv := SplitSASS(read(t, "ldgsts_copy.nvdisasm.txt"))
	cu := SplitSASS(read(t, "ldgsts_copy.cuobjdump.txt"))
	if len(nv) != 2 || len(cu) != 2 {
		t.Fatalf("functions: nvdisasm %v, cuobjdump %v", keys(nv), keys(cu))
	}
	for name := range nv {
		a, b := MemoryOps(nv[name]), MemoryOps(cu[name])
		if !maps.Equal(a, b) {
			t.Errorf("%s: nvdisasm counts %v, cuobjdump counts %v", name, a, b)
		}
	}
	// ldgsts_kernel: 4 × 128-bit cp.async and one 64-bit, read back with
	// LDS.128 and stored with STG.E.128; its three "@!PT LDS RZ, [RZ]"
	// never run and are not counted.
	want := map[string]int{"LDGSTS.E.BYPASS.128": 4, "LDGSTS.E.64": 1, "LDS.128": 4, "STG.E.128": 4}
	if got := MemoryOps(nv["ldgsts_kernel"]); !maps.Equal(got, want) {
		t.Errorf("ldgsts_kernel: got %v, want %v", got, want)
	}
	if got := MemoryOps(nv["past_the_end_kernel"]); got["UTMALDG.2D"] != 1 {
		t.Errorf("past_the_end_kernel: got %v, want one UTMALDG.2D", got)
	}
	ld := SplitSASS(read(t, "ldstmatrix_frag.nvdisasm.txt"))
	all := map[string]int{}
	for _, s := range ld {
		for k, v := range MemoryOps(s) {
			all[k] += v
		}
	}
	if all["LDSM.16.M88.4"] != 3 || all["STSM.16.M88.4"] != 5 || all["LDC"] != 0 {
		t.Errorf("ldstmatrix_frag: got %v", all)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestFind checks the order of precedence with fake tools: the explicit
// path, then $TILELS_NVCC, then PATH, then a Python environment's wheel.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) string {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho 'Cuda compilation tools, release 13.5, V13.5.37'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	explicit := mk(filepath.Join(dir, "a", "nvcc"))
	env := mk(filepath.Join(dir, "b", "nvcc"))
	path := mk(filepath.Join(dir, "c", "nvcc"))
	wheel := mk(filepath.Join(dir, "venv", "lib", "python3.11", "site-packages", "nvidia", "cu13", "bin", "nvcc"))
	dis := mk(filepath.Join(dir, "venv", "lib", "python3.11", "site-packages", "nvidia", "cu13", "bin", "nvdisasm"))
	getenv := func(v string) func(string) string {
		return func(k string) string {
			if k == "TILELS_NVCC" {
				return v
			}
			return ""
		}
	}
	look := func(p string) func(string) (string, error) {
		return func(name string) (string, error) {
			if name == "nvcc" && p != "" {
				return p, nil
			}
			return "", os.ErrNotExist
		}
	}
	for _, tc := range []struct {
		s          Search
		nvcc, from string
	}{
		{Search{Explicit: explicit, ExplicitFrom: "tilels.nvcc", Getenv: getenv(env), LookPath: look(path)}, explicit, "tilels.nvcc"},
		{Search{Getenv: getenv(env), LookPath: look(path), Envs: []string{filepath.Join(dir, "venv")}}, env, "TILELS_NVCC"},
		{Search{Getenv: getenv(""), LookPath: look(path), Envs: []string{filepath.Join(dir, "venv")}}, path, "PATH"},
		{Search{Getenv: getenv(""), LookPath: look(""), Envs: []string{filepath.Join(dir, "none"), filepath.Join(dir, "venv")}}, wheel, "python environment " + filepath.Join(dir, "venv")},
	} {
		tool, why, ok := Find(tc.s)
		if !ok || tool.NVCC != tc.nvcc || tool.From != tc.from || tool.Version != "13.5.37" {
			t.Errorf("Find: got %+v (%s), want %s from %s", tool, why, tc.nvcc, tc.from)
		}
		if tc.nvcc == wheel && (tool.Disasm != dis || tool.DisasmKind != "nvdisasm") {
			t.Errorf("the wheel's nvdisasm was not found beside it: %+v", tool)
		}
	}
	if _, why, ok := Find(Search{Getenv: getenv(""), LookPath: look("")}); ok || !strings.Contains(why, "tilels.nvcc") {
		t.Errorf("nothing to find: ok %v, why %q", ok, why)
	}
	if _, why, ok := Find(Search{Explicit: filepath.Join(dir, "missing"), Getenv: getenv("")}); ok || !strings.Contains(why, "does not run") {
		t.Errorf("a missing explicit nvcc: ok %v, why %q", ok, why)
	}
}

// TestCompileReal compiles a kernel with the nvcc of $TILELS_NVCC (CI
// sets it to the pinned wheel's). Without one it checks what a caller
// sees instead: Find says why there is none, in one line.
func TestCompileReal(t *testing.T) {
	tool, why, ok := Find(Search{LookPath: func(string) (string, error) { return "", os.ErrNotExist }})
	if !ok {
		t.Logf("no nvcc ($TILELS_NVCC unset): checking the not-available path")
		if os.Getenv("TILELS_NVCC") != "" || why == "" || strings.Contains(why, "\n") {
			t.Fatalf("Find failed with TILELS_NVCC=%q: %q", os.Getenv("TILELS_NVCC"), why)
		}
		return
	}
	dir := t.TempDir()
	c := NewCompiler(tool, dir, 1)
	cu := read(t, "spill.cu")
	a, err := c.Compile(context.Background(), cu, "sm_90a")
	if err != nil || a.Failed != "" {
		t.Fatalf("compile: %v %s", err, a.Failed)
	}
	k, ok := a.KernelView("spill_kernel", 1024, 0)
	if !ok {
		t.Fatalf("no spill_kernel in %+v", a.Kernels)
	}
	// __launch_bounds__(1024, 2) caps the registers at 32 (65536 / 2048
	// threads): the 48 floats spill, and the occupancy is the 2 blocks
	// asked for (threads bind: 64 warps / 32).
	if k.Registers > 32 || k.SpillStores == 0 || k.Occupancy.BlocksPerSM != 2 || k.Occupancy.Limit != LimitThreads {
		t.Errorf("spill_kernel: %+v, occupancy %+v", k.Resources, k.Occupancy)
	}
	if !strings.Contains(k.PTX, ".entry spill_kernel") {
		t.Errorf("PTX: %q", k.PTX)
	}
	if tool.Disasm != "" && (k.SASS == "" || k.MemoryOps["STL"] == 0) {
		t.Errorf("SASS from %s: %d bytes, memory ops %v (spills store with STL)", tool.DisasmKind, len(k.SASS), k.MemoryOps)
	}
	if tool.Disasm == "" && k.NoSASS == "" {
		t.Errorf("no disassembler and no reason")
	}
	// Cached: in memory, then on disk for a new Compiler.
	if b, _ := c.Compile(context.Background(), cu, "sm_90a"); b != a || c.Compiles() != 1 {
		t.Errorf("the second Compile ran nvcc again (%d runs)", c.Compiles())
	}
	c2 := NewCompiler(tool, dir, 1)
	if b, ok := c2.Cached(cu, "sm_90a"); !ok || b.PTX != a.PTX || c2.Compiles() != 0 {
		t.Errorf("the disk cache missed")
	}
	// Blackwell and a program nvcc rejects.
	if b, err := c.Compile(context.Background(), cu, "sm_100a"); err != nil || b.Failed != "" || len(b.Kernels) != 1 {
		t.Errorf("sm_100a: %v %s", err, b.Failed)
	}
	bad, err := c.Compile(context.Background(), cu+"\nint broken(;\n", "sm_90a")
	if err != nil || !strings.Contains(bad.Failed, "error") {
		t.Errorf("a broken program: %v, failed %q", err, bad.Failed)
	}
}

func TestDiskCacheBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range DiskEntries + 5 {
		c := NewCompiler(Tool{Version: "x"}, dir, 1)
		c.diskPut(c.Key(strings.Repeat("a", i), "sm_90a"), &Artifact{PTX: "p"})
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != DiskEntries {
		t.Errorf("%d files in the disk cache, want %d", len(ents), DiskEntries)
	}
}
