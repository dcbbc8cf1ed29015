package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/dsl/tirxlib"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/release"
)

var update = flag.Bool("update", false, "rewrite golden outputs in testdata")

func init() { eval.PanicInTests = true }

// evalSource parses and evaluates src.
func evalSource(name string, src []byte, opts eval.Options) (*eval.Program, []diag.Diagnostic) {
	f, sd := syntax.Parse(source.NewFile(name, src))
	if opts.Library == nil {
		opts.Library = tirxlib.Library()
	}
	return eval.Evaluate(f, opts), sd
}

// render is the golden text of one case: syntax diagnostics, then Dump.
func render(file *source.File, p *eval.Program, syn []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range syn {
		line, col := file.Position(d.Span.Start)
		b.WriteString(strings.Join([]string{itoa(line) + ":" + itoa(col), d.Severity.String() + "[" + d.Code + "]", d.Message}, " "))
		b.WriteString("\n")
	}
	b.WriteString(eval.Dump(p))
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestGolden evaluates every X.py section of testdata/*.txtar and compares
// the result with the X.out section (-update rewrites it).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, path := range files {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		changed := false
		for i := 0; i < len(ar.Files); i++ {
			f := &ar.Files[i]
			if !strings.HasSuffix(f.Name, ".py") {
				continue
			}
			name := strings.TrimSuffix(f.Name, ".py")
			t.Run(filepath.Base(path)+"/"+name, func(t *testing.T) {
				p, syn := evalSource(f.Name, f.Data, eval.Options{Release: pinnedRelease(f.Data)})
				got := render(p.File, p, syn)
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
					return
				}
				if outIdx < 0 {
					t.Fatalf("missing section %s.out; run with -update", name)
				}
				if want := string(ar.Files[outIdx].Data); want != got {
					t.Errorf("mismatch for %s (-update to accept)\n--- got ---\n%s--- want ---\n%s", name, got, want)
				}
			})
		}
		if changed {
			if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// pinnedRelease is the release a test program pins with a
// "# tilels: reference=X" line (lower reads the same directive), else 0.25.
func pinnedRelease(src []byte) release.Release {
	for _, line := range strings.Split(string(src), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "# tilels: reference="); ok {
			if r, ok := release.Parse(v); ok {
				return r
			}
		}
	}
	return release.R025
}
