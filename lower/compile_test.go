package lower

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/codegen/harness"
	"github.com/tilels/tilels/dsl/diag"
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
	// Lower every program first (in parallel: each Analyze is independent),
	// then compile them all in merged batches (cudacheck.CompileAll): the
	// CUDA headers dominate an nvcc run, and one run per program took most
	// of this package's time.
	type job struct {
		prog prog
		arch string
	}
	var jobs []job
	for _, p := range progs {
		for _, arch := range testArches(p.src) {
			jobs = append(jobs, job{p, arch})
		}
	}
	units := make([]*cudacheck.Unit, len(jobs))
	notes := make([]string, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				units[i], notes[i], errs[i] = generateForCompile(jobs[i].prog.name, jobs[i].prog.src, jobs[i].arch)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	var batch []cudacheck.Unit
	var batchJob []int
	for i, j := range jobs {
		if errs[i] != nil {
			t.Errorf("%s (%s): %v", j.prog.name, j.arch, errs[i])
			continue
		}
		if notes[i] != "" {
			t.Logf("%s (%s): %s", j.prog.name, j.arch, notes[i])
		}
		if units[i] != nil {
			batch = append(batch, *units[i])
			batchJob = append(batchJob, i)
		}
	}
	if len(batch) == 0 {
		t.Fatal("no program lowers completely")
	}
	t.Logf("compiling %d programs", len(batch))
	for k, err := range cc.CompileAll(t.TempDir(), batch) {
		if err != nil {
			j := jobs[batchJob[k]]
			t.Errorf("%s (%s): %v", j.prog.name, j.arch, err)
		}
	}
}

// generateForCompile lowers one program for arch and returns its .cu file
// with the self-checking harness (the kernels alone when the harness's
// reference does not model one, said in note); a nil unit when no kernel
// lowers completely.
func generateForCompile(name string, src []byte, arch string) (u *cudacheck.Unit, note string, err error) {
	res := Analyze(source.NewFile(name+".py", src), Options{Arch: arch})
	var ks []*Kernel
	for _, k := range res.Kernels {
		if len(k.Calls) > 0 && allLowered(k) && !slices.ContainsFunc(k.Diags, func(d diag.Diagnostic) bool { return d.Code == "lower/arch" }) {
			ks = append(ks, k) // a kernel that needs a newer arch (tcgen05 on sm_90a) is compiled for the arches it names
		}
	}
	if len(ks) == 0 {
		return nil, "no kernel lowers completely for " + arch, nil
	}
	// With #line directives, as tilels --lower prints by default.
	popts := Options{Arch: arch, LineDirectives: &cuda.LineDirectives{Source: res.File}}
	cu, _, err := Harness(res.File, ks, popts)
	var un *harness.Unsupported
	if errors.As(err, &un) {
		note = fmt.Sprintf("no harness (%v): compiling the kernels alone", un)
		cu, err = CUDA(ks, popts)
	}
	if err != nil {
		return nil, note, fmt.Errorf("codegen: %w", err)
	}
	return &cudacheck.Unit{Name: name + "." + arch, Src: []byte(cu), Arch: arch}, note, nil
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
