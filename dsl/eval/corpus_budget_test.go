package eval

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// TestCorpusBudget evaluates every corpus program under a value budget 64
// times smaller than the default (1 MiB per unit, 4 MiB per file): no
// legitimate kernel file comes near eval/too-large.
func TestCorpusBudget(t *testing.T) {
	for name, src := range corpusPrograms(t) {
		p, _ := evalSource(filepath.Base(name), src, Options{MaxBytes: DefaultMaxBytes / 64})
		for _, d := range p.Diags {
			if d.Code == CodeTooLarge {
				t.Errorf("%s: %s", name, d.Message)
			}
		}
	}
}
