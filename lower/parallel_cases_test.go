package lower

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tilels/tilels/internal/txtar"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
)

var parallelCorpus = flag.String("parallel.corpus", "", "also compare the parallel and sequential evaluation of the bound cases of every .py file under this directory")

// TestParallelCases: the bound cases of a binding source evaluated in
// parallel (dsl/eval/parallel_cases.go; only with GOMAXPROCS >= 2) give
// the sequential run's result, on every golden program and, with
// -parallel.corpus, every file of a corpus (at its own path, so that its
// workspace imports resolve).
func TestParallelCases(t *testing.T) {
	type prog struct {
		path string
		src  []byte
		opts Options
	}
	var progs []prog
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := ar.Get("kernel.py")
		if !ok {
			continue
		}
		opts := Options{}
		if o, ok := ar.Get("options"); ok {
			opts = goldenOptions(t, string(o))
		}
		opts.LineDirectives = nil
		progs = append(progs, prog{path, src, opts})
	}
	if dir := *parallelCorpus; dir != "" {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			abs, _ := filepath.Abs(p)
			progs = append(progs, prog{abs, src, Options{Path: abs}})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	render := func(p prog, procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		f := source.NewFile(p.path, p.src)
		res := Analyze(f, p.opts)
		cu, err := CUDA(res.Kernels, p.opts)
		if err != nil {
			cu = "error: " + err.Error()
		}
		var b strings.Builder
		b.WriteString(diagText(f, res.Diags))
		b.WriteString(Explain(res))
		b.WriteString(TIRx(res.Kernels))
		b.WriteString(cu)
		for _, k := range res.Kernels {
			b.WriteString(k.Name + " " + k.CaseLabel + "\n")
			b.WriteString(diagText(f, k.Diags))
		}
		for _, k := range res.Partial {
			b.WriteString("partial " + k.Name + "\n")
			b.WriteString(diagText(f, k.Diags))
		}
		return b.String()
	}
	defer eval.WaitForReplicas(eval.WaitForReplicas(true))
	merged := eval.MergedCases()
	for _, p := range progs {
		want := render(p, 1)
		if got := render(p, 4); got != want {
			t.Errorf("%s: the parallel evaluation of its cases differs from the sequential one\n--- sequential\n%s\n--- parallel\n%s", p.path, want, got)
		}
	}
	if eval.MergedCases() == merged {
		t.Error("no case was evaluated in parallel")
	}
	t.Logf("%d programs, %d cases evaluated in parallel", len(progs), eval.MergedCases()-merged)
}
