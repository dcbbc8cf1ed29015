package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/internal/txtar"
)

// TestImports evaluates the main*.py files of each testdata/imports/*.txtar
// workspace with the workspace as import root, and compares the Dump and
// the files read with the main*.out sections (-update rewrites them).
func TestImports(t *testing.T) {
	paths, _ := filepath.Glob("testdata/imports/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no testdata")
	}
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".out") {
				continue
			}
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		changed := false
		for i := 0; i < len(ar.Files); i++ {
			f := ar.Files[i]
			if !strings.HasPrefix(f.Name, "main") || !strings.HasSuffix(f.Name, ".py") {
				continue
			}
			name := strings.TrimSuffix(f.Name, ".py")
			p, syn := evalSource(f.Name, f.Data, Options{Path: filepath.Join(dir, f.Name), ImportRoots: []string{dir}})
			got := render(p.File, p, syn) + "imports:\n"
			for _, imp := range p.Imports {
				rel, _ := filepath.Rel(dir, imp)
				got += "  " + filepath.ToSlash(rel) + "\n"
			}
			outIdx := -1
			for j := range ar.Files {
				if ar.Files[j].Name == name+".out" {
					outIdx = j
				}
			}
			if *update {
				if outIdx < 0 {
					ar.Files = append(ar.Files[:i+1], append([]txtar.File{{Name: name + ".out"}}, ar.Files[i+1:]...)...)
					outIdx = i + 1
				}
				if string(ar.Files[outIdx].Data) != got {
					ar.Files[outIdx].Data = []byte(got)
					changed = true
				}
				continue
			}
			if outIdx < 0 {
				t.Fatalf("%s: missing section %s.out; run with -update", path, name)
			}
			if want := string(ar.Files[outIdx].Data); want != got {
				t.Errorf("%s: mismatch for %s (-update to accept)\n--- got ---\n%s--- want ---\n%s", path, name, got, want)
			}
		}
		if changed {
			if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
