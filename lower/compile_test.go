package lower

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/cudacheck"
	"github.com/tilels/tilels/internal/txtar"
)

// TestGeneratedCUDACompiles lowers every program under testdata/ (the
// pipeline goldens and the bundled examples) and compiles the .cu file:
// through nvcc and ptxas when one is available (scripts/test installs it),
// else a host-compiler syntax check against stub headers.
func TestGeneratedCUDACompiles(t *testing.T) {
	cc, ok := cudacheck.Find()
	if !ok {
		t.Skip("neither nvcc nor a host C++ compiler is available")
	}
	t.Logf("compiling with %s", cc)
	type prog struct {
		name string
		src  []byte
	}
	var progs []prog
	goldens, _ := filepath.Glob("testdata/*.txtar")
	for _, p := range goldens {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if src, ok := ar.Get("kernel.py"); ok {
			progs = append(progs, prog{strings.TrimSuffix(filepath.Base(p), ".txtar"), src})
		}
	}
	examples, _ := filepath.Glob("../testdata/examples/*.py")
	for _, p := range examples {
		progs = append(progs, prog{"example_" + strings.TrimSuffix(filepath.Base(p), ".py"), readFile(t, p)})
	}
	if len(progs) == 0 {
		t.Fatal("no programs")
	}
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			res := Analyze(source.NewFile(p.name+".py", p.src), Options{})
			var ks []*Kernel
			for _, k := range res.Kernels {
				if len(k.Calls) > 0 && allLowered(k) {
					ks = append(ks, k)
				}
			}
			if len(ks) == 0 {
				t.Skip("no kernel lowers completely")
			}
			cu, err := CUDA(ks, Options{})
			if err != nil {
				t.Fatalf("codegen: %v", err)
			}
			if err := cc.Compile(t.TempDir(), p.name, []byte(cu), "sm_90a"); err != nil {
				t.Error(err)
			}
		})
	}
}

func allLowered(k *Kernel) bool {
	for _, c := range k.Calls {
		if c.Variant == "" {
			return false
		}
	}
	return true
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
