package lower

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/release"
)

var update = flag.Bool("update", false, "rewrite the out/* sections of testdata/*.txtar")

// TestGolden runs the whole pipeline on every testdata/*.txtar archive's
// kernel.py and compares diagnostics, the dispatch explanation, the lowered
// TIRx IR and the CUDA file with the archive's out/* sections.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			src, ok := ar.Get("kernel.py")
			if !ok {
				t.Fatal("no kernel.py section")
			}
			f := source.NewFile("kernel.py", src)
			opts := Options{}
			if o, ok := ar.Get("options"); ok {
				opts = goldenOptions(t, string(o))
			}
			if opts.LineDirectives != nil {
				opts.LineDirectives = &cuda.LineDirectives{Source: f}
			}
			testReference(t, src) // the program pins its release itself
			res := Analyze(f, opts)
			cu, err := CUDA(res.Kernels, opts)
			if err != nil {
				cu = "error: " + err.Error() + "\n"
			}
			got := map[string]string{
				"out/diagnostics": diagText(f, res.Diags),
				"out/dispatch":    Explain(res),
				"out/tirx":        TIRx(res.Kernels),
				"out/cuda":        cu,
			}
			names := []string{"out/diagnostics", "out/dispatch", "out/tirx", "out/cuda"}
			if _, ok := ar.Get("out/memory"); ok {
				// opt-in per golden: the memory figures (perf/memory)
				got["out/memory"] = ExplainMemory(res, opts)
				names = append(names, "out/memory")
			}
			changed := false
			for _, name := range names {
				want, ok := ar.Get(name)
				if *update {
					if !ok || string(want) != got[name] {
						ar.Set(name, []byte(got[name]))
						changed = true
					}
					continue
				}
				if !ok {
					t.Errorf("%s: missing section %s (run go test -update)", path, name)
					continue
				}
				if string(want) != got[name] {
					t.Errorf("%s: %s differs (run go test ./lower -update and review the diff)\n--- want\n%s\n--- got\n%s", path, name, want, got[name])
				}
			}
			if changed {
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

var testReferenceLine = regexp.MustCompile(`(?m)^# tilels: reference=(\S+)\s*$`)

// testReference is the release a test program states it was written for
// ("# tilels: reference=0.25", the directive tilels itself reads, so
// that the CLI, the server and scripts/gpu-check analyse the program as
// the golden does); every golden program states one.
func testReference(t testing.TB, src []byte) string {
	t.Helper()
	m := testReferenceLine.FindSubmatch(src)
	if m == nil {
		t.Fatal(`the program states no reference release: add "# tilels: reference=0.25" (or 0.26, 0.27)`)
	}
	if _, auto, ok := ParseReference(string(m[1])); !ok || auto {
		t.Fatalf("tilels: reference=%s is not a modelled release (%s)", m[1], release.Names())
	}
	return string(m[1])
}

func diagText(f *source.File, ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(diag.Format(f, d))
		b.WriteByte('\n')
	}
	return b.String()
}

// goldenOptions parses an archive's optional "options" section: one option
// per line, "max_cases N", "arch sm_80", "bind NAME TEXT" (Options.Bind[NAME] = TEXT)
// or "line_directives" (out/cuda with #line directives to kernel.py).
func goldenOptions(t *testing.T, text string) Options {
	var o Options
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		key, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch key {
		case "max_cases":
			n, err := strconv.Atoi(rest)
			if err != nil {
				t.Fatalf("options: %v", err)
			}
			o.MaxCases = n
		case "arch":
			o.Arch = rest
		case "line_directives":
			o.LineDirectives = &cuda.LineDirectives{} // its Source is set by the caller
		case "bind":
			name, text, _ := strings.Cut(rest, " ")
			if o.Bind == nil {
				o.Bind = map[string]string{}
			}
			o.Bind[name] = text
		default:
			t.Fatalf("options: unknown option %q", line)
		}
	}
	return o
}
