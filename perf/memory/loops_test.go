package memory_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestLoopDedup compares the analysis that skips translated loop
// iterations (loops.go) with executing every iteration, fact by fact (the
// misaligned access, the elided accesses and the step count included),
// on every kernel of lower's golden programs, the programs of testdata
// and the 3,000-line benchmark corpus, and checks that it skips
// iterations of some kernels.
func TestLoopDedup(t *testing.T) {
	srcs := map[string][]byte{}
	for _, glob := range []string{"../../lower/testdata/*.txtar", "../../testdata/*/*.py", "../../testdata/*/*/*.py", "../../testdata/*/*/*/*.py"} {
		paths, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if filepath.Ext(p) == ".py" {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				srcs[p] = b
				continue
			}
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := ar.Get("kernel.py"); ok {
				srcs[p] = s
			}
		}
	}
	if dir := os.Getenv("TILELS_BENCH_DIR"); dir != "" {
		// the 128-file corpus of docs/coverage.md, when at hand
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".py" {
				if b, err := os.ReadFile(p); err == nil {
					srcs[p] = b
				}
			}
			return nil
		})
	}
	big, err := benchcorpus.Build("../../testdata/examples", 3000)
	if err != nil {
		t.Fatal(err)
	}
	srcs["corpus"] = []byte(big)
	kernels, faster := 0, 0
	for name, src := range srcs {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			kernels++
			fk := memory.Analyze(k.Lowered, k.Launch)
			old := memory.SetLoopDedup(false)
			sk := memory.Analyze(k.Lowered, k.Launch)
			memory.SetLoopDedup(old)
			fast, slow := loopText(fk, k), loopText(sk, k)
			if fast != slow {
				t.Errorf("%s kernel %s: skipping translated iterations differs:\n%s\nexecuting every iteration:\n%s", name, k.Name, fast, slow)
			}
			if memory.Work(fk) < memory.Work(sk) {
				faster++
			}
		}
	}
	t.Logf("%d kernels, %d with skipped iterations", kernels, faster)
	if faster == 0 {
		t.Error("no kernel's loop iterations were skipped")
	}
}

func loopText(m *memory.Kernel, k *lower.Kernel) string {
	s := ctaText(m, k)
	el := func(f *memory.Figures) string {
		if f == nil {
			return "-"
		}
		return f.Elided
	}
	s += "\nelided " + el(m.Total)
	for _, d := range k.Calls {
		s += " | " + el(m.Calls[d.Call])
	}
	return s + "\nsteps " + fmt.Sprint(memory.Steps(m))
}
