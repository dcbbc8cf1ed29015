package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/internal/txtar"
)

// corpusPrograms returns every Python program of the repository's test
// corpus: the .py files under testdata/ and the .py sections of the
// txtar goldens of dsl/eval, lower and lsp.
func corpusPrograms(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, root := range []string{"../../testdata", "testdata", "../../lower/testdata", "../../lsp/testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch {
			case strings.HasSuffix(path, ".py"):
				src, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				out[path] = src
			case strings.HasSuffix(path, ".txtar"):
				ar, err := txtar.ParseFile(path)
				if err != nil {
					return err
				}
				for _, f := range ar.Files {
					if strings.HasSuffix(f.Name, ".py") {
						out[path+"/"+f.Name] = f.Data
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 100 {
		t.Fatalf("found only %d corpus programs; the walk is broken", len(out))
	}
	return out
}

// TestCorpusBudget evaluates every corpus program under budgets 64 times
// smaller than the defaults: values (1 MiB per unit, 4 MiB per file),
// steps (15,625 per unit, 250,000 per file), IR (4,096 statements, 256
// tile calls per file). No legitimate kernel file comes near
// eval/too-large or eval/budget. A program that runs out of the default
// budgets on purpose (a budget test) is left out. The 30,000-line
// benchmark file (internal/benchcorpus), larger than any kernel file
// written by hand, must stay under budgets 3 times smaller than the
// defaults' fixed parts, and a 150,000-line one (5 MB) under the
// defaults.
func TestCorpusBudget(t *testing.T) {
	small := eval.Options{MaxBytes: eval.DefaultMaxBytes / 64, MaxSteps: eval.DefaultMaxSteps / 64, MaxIR: eval.DefaultMaxIR / 64, MaxTileCalls: eval.DefaultMaxTileCalls / 64}
	check := func(name string, src []byte, opts eval.Options) {
		p, _ := evalSource(filepath.Base(name), src, opts)
		for _, d := range p.Diags {
			if d.Code == eval.CodeTooLarge || d.Code == eval.CodeBudget {
				t.Errorf("%s: %s", name, d.Message)
			}
		}
	}
	n := 0
	for name, src := range corpusPrograms(t) {
		if p, _ := evalSource(filepath.Base(name), src, eval.Options{}); slices.ContainsFunc(p.Diags, func(d diag.Diagnostic) bool {
			return d.Code == eval.CodeTooLarge || d.Code == eval.CodeBudget
		}) {
			continue
		}
		n++
		check(name, src, small)
	}
	if n < 100 {
		t.Errorf("only %d corpus programs checked", n)
	}
	big, err := benchcorpus.Build("../../testdata/examples", 30000)
	if err != nil {
		t.Fatal(err)
	}
	check("30,000 lines", []byte(big), eval.Options{MaxSteps: eval.DefaultMaxSteps / 3, MaxIR: eval.DefaultMaxIR / 3, MaxTileCalls: eval.DefaultMaxTileCalls / 3})
	// A file of kernels written out (not unrolled) of 5 MB, as the
	// language server's large-file test opens, builds more IR than the
	// budgets' fixed part: the part that grows with the file holds it.
	huge, err := benchcorpus.Build("../../testdata/examples", 150_000)
	if err != nil {
		t.Fatal(err)
	}
	check("150,000 lines", []byte(huge), eval.Options{})
}
