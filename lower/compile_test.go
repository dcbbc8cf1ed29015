package lower

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/harness"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/cudacheck"
	"github.com/tilels/tilels/internal/txtar"
)

// TestGeneratedCUDACompiles lowers every program under testdata/ (the
// pipeline goldens here and every .py under the repository's testdata/:
// the bundled examples, the GPU-check programs, the reference-agreement
// corpus) and compiles the .cu file with its self-checking harness
// (--harness; the plain .cu when the harness's reference does not model a
// kernel): through nvcc and ptxas when one is available (scripts/test
// installs it), else a host-compiler syntax check against stub headers.
// Each program compiles for sm_90a, and also for every arch named by a
// "# tilels-test: arch=sm_100a" line in it.
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
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("..", "testdata"), p)
		name := strings.NewReplacer("/", "_", string(filepath.Separator), "_").Replace(strings.TrimSuffix(rel, ".py"))
		progs = append(progs, prog{name, readFile(t, p)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) == 0 {
		t.Fatal("no programs")
	}
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			for _, arch := range testArches(p.src) {
				res := Analyze(source.NewFile(p.name+".py", p.src), Options{Arch: arch})
				var ks []*Kernel
				for _, k := range res.Kernels {
					if len(k.Calls) > 0 && allLowered(k) {
						ks = append(ks, k)
					}
				}
				if len(ks) == 0 {
					t.Skip("no kernel lowers completely")
				}
				cu, err := Harness(res.File, ks, Options{Arch: arch})
				var u *harness.Unsupported
				if errors.As(err, &u) {
					t.Logf("%s: no harness (%v): compiling the kernels alone", arch, u)
					cu, err = CUDA(ks, Options{Arch: arch})
				}
				if err != nil {
					t.Fatalf("codegen: %v", err)
				}
				if err := cc.Compile(t.TempDir(), p.name, []byte(cu), arch); err != nil {
					t.Errorf("%s: %v", arch, err)
				}
			}
		})
	}
}

var testArchLine = regexp.MustCompile(`(?m)^# tilels-test: arch=(sm_[0-9]+[af]?)\s*$`)

// testArches is sm_90a plus the arches a program's "# tilels-test:
// arch=..." lines name.
func testArches(src []byte) []string {
	arches := []string{"sm_90a"}
	for _, m := range testArchLine.FindAllSubmatch(src, -1) {
		if a := string(m[1]); !slices.Contains(arches, a) {
			arches = append(arches, a)
		}
	}
	return arches
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
