package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

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
			p, syn := evalSource(f.Name, f.Data, eval.Options{Path: filepath.Join(dir, f.Name), ImportRoots: []string{dir}})
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

// TestImportBudget: past the module count or the source bytes of one
// evaluation, a module is not loaded and its use says why.
func TestImportBudget(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.py":   "from b import B\nA = B + 1\n",
		"b.py":   "from c import C\nB = C + 1\n",
		"c.py":   "C = 1\n",
		"big.py": "BIG = 1\n" + strings.Repeat("# padding\n", 20),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := `from tvm.script import tirx as T
from a import A
from big import BIG


@T.prim_func
def k(X: T.Buffer((A, BIG), "float32")):
    T.device_entry()
`
	check := func(mods, bytes int, want ...string) {
		t.Helper()
		savedM, savedB := eval.MaxImportModules, eval.MaxImportBytes
		eval.MaxImportModules, eval.MaxImportBytes = mods, bytes
		defer func() { eval.MaxImportModules, eval.MaxImportBytes = savedM, savedB }()
		p, _ := evalSource("main.py", []byte(src), eval.Options{Path: filepath.Join(dir, "main.py"), ImportRoots: []string{dir}})
		var got []string
		for _, d := range p.Diags {
			got = append(got, d.Message)
		}
		all := strings.Join(got, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("modules %d, bytes %d: no diagnostic with %q in\n%s", mods, bytes, w, all)
			}
		}
		if len(want) == 0 && all != "" {
			t.Errorf("modules %d, bytes %d: unexpected diagnostics\n%s", mods, bytes, all)
		}
	}
	check(256, 1<<20)
	check(2, 1<<20, "not modelled: module `c`: more than 2 imported modules")
	check(256, 100, "not modelled: module `big`: imported modules exceed 100 bytes of source")
}

// TestImportsShared: evaluations on several goroutines share the parsed
// trees of the modules they import (parsedModule); each must give the
// result of a lone evaluation (run with -race to check the sharing).
func TestImportsShared(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/imports/workspace.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var mains []txtar.File
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
		if strings.HasPrefix(f.Name, "main") && strings.HasSuffix(f.Name, ".py") {
			mains = append(mains, f)
		}
	}
	if len(mains) == 0 {
		t.Fatal("no main*.py in the workspace golden")
	}
	run := func(f txtar.File) string {
		p, syn := evalSource(f.Name, f.Data, eval.Options{Path: filepath.Join(dir, f.Name), ImportRoots: []string{dir}})
		return render(p.File, p, syn)
	}
	want := make([]string, len(mains))
	for i, f := range mains {
		want[i] = run(f)
	}
	const workers = 4
	got := make([][]string, workers)
	done := make(chan int)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for _, f := range mains {
				got[w] = append(got[w], run(f))
			}
			done <- w
		}(w)
	}
	for w := 0; w < workers; w++ {
		<-done
	}
	for w := range got {
		for i := range mains {
			if got[w][i] != want[i] {
				t.Errorf("worker %d, %s: differs from a lone evaluation", w, mains[i].Name)
			}
		}
	}
}
