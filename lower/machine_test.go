package lower

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/perf/machine"
)

func goldenResult(t *testing.T, name string) *Result {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := ar.Get("kernel.py")
	return Analyze(source.NewFile("kernel.py", src), Options{})
}

// TestMachineCode compiles the kernels of a golden program with one nvcc
// run: with the nvcc of $TILELS_NVCC (CI: the pinned wheel) when set,
// else with the fake toolchain of perf/machine/testdata/fake. Each view
// is the kernel's own (its symbol, its launch), and the texts the editor
// and --emit show are built from it.
func TestMachineCode(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	fake, _ := filepath.Abs("../perf/machine/testdata/fake/nvcc")
	real := os.Getenv("TILELS_NVCC") != ""
	explicit := fake
	if real {
		explicit = ""
	}
	tool, why, ok := machine.Find(machine.Search{Explicit: explicit})
	if !ok {
		t.Fatalf("no nvcc: %s", why)
	}
	t.Logf("compiling with %s (%s)", tool.NVCC, tool.Source())
	c := machine.NewCompiler(tool, "", 1)
	// Two kernels: one with 4160 bytes of dynamic shared memory (a TMA
	// pipeline), one copy with static shared memory only.
	res := goldenResult(t, "scheduler_persistent_tma")
	res2 := goldenResult(t, "cta_gmem_smem_regions")
	for _, r := range []*Result{res, res2} {
		views, failed, err := MachineCode(context.Background(), c, r.Kernels, Options{})
		if err != nil || failed != "" {
			t.Fatalf("MachineCode: %v %s", err, failed)
		}
		syms := Symbols(r.Kernels)
		cu, err := CUDA(r.Kernels, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range r.Kernels {
			m := views[i]
			if m == nil {
				t.Errorf("%s: no view", k.Name)
				continue
			}
			// The dynamic shared memory is the launcher's (the printer sizes
			// the shared.dyn arena; ir.Launch leaves it 0).
			launch := fmt.Sprintf("dynamicSmemBytes = %d;\n  tilels_config.stream = stream;\n", m.DynamicShared)
			if m.Symbol != syms[i]+"_kernel" || m.Threads != int(k.Launch.Threads()) || !strings.Contains(cu, launch) {
				t.Errorf("%s: view of %s with %d threads, %d dynamic bytes; want %s_kernel, %d, and a launcher with that",
					k.Name, m.Symbol, m.Threads, m.DynamicShared, syms[i], k.Launch.Threads())
			}
			if r == res && m.DynamicShared == 0 {
				t.Errorf("%s: the TMA pipeline's shared.dyn buffers give no dynamic shared memory", k.Name)
			}
			o := m.Occupancy
			if o == nil || o.SharedPerBlock < m.StaticShared+m.DynamicShared+1024 || o.BlocksPerSM < 1 {
				t.Errorf("%s: occupancy %+v for %d + %d bytes", k.Name, o, m.StaticShared, m.DynamicShared)
				continue
			}
			lens := MachineLens(m)
			if !strings.HasPrefix(lens, strings.Split(lens, " ")[0]+" regs · ") || !strings.HasSuffix(lens, "blocks/SM ("+o.Limit+")") {
				t.Errorf("%s: lens %q", k.Name, lens)
			}
			hover := strings.Join(MachineLines(m), "\n")
			for _, want := range []string{"registers: ", "shared memory: ", "occupancy: ", "limited by " + o.Limit} {
				if !strings.Contains(hover, want) {
					t.Errorf("%s: hover lacks %q:\n%s", k.Name, want, hover)
				}
			}
			if real && (m.Registers == 0 || !strings.Contains(m.PTX, ".entry "+m.Symbol)) {
				t.Errorf("%s: %d registers, PTX %q", k.Name, m.Registers, m.PTX)
			}
		}
		if real && r == res {
			// The TMA kernel's machine code issues the bulk tensor copies.
			if ops := views[0].MemoryOps; tool.Disasm != "" && ops["UTMALDG.3D"] == 0 {
				t.Errorf("no UTMALDG.3D in %v", ops)
			}
		}
		text := MachineText(r.Kernels, views, "ptx")
		if strings.Count(text, "// ===== kernel ") != len(r.Kernels) {
			t.Errorf("--emit ptx has %d headers for %d kernels:\n%s", strings.Count(text, "// ===== kernel "), len(r.Kernels), text)
		}
	}
	if c.Compiles() != 2 {
		t.Errorf("%d nvcc runs for two files", c.Compiles())
	}
}

func TestMachineSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KB", 49152: "48 KB", 14464: "14.1 KB"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
