package lower

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// previewSources returns the programs TestPreviewExact edits: the kernel
// of every testdata archive and the .py files under testdata/preview, and
// with $TILELS_BENCH_DIR set the .py files under it (the 128-file corpus).
func previewSources(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	archives, _ := filepath.Glob("testdata/*.txtar")
	for _, p := range archives {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if src, ok := ar.Get("kernel.py"); ok {
			out[p] = src
		}
	}
	dirs := []string{"testdata/preview"}
	if d := os.Getenv("TILELS_BENCH_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".py") {
				if src, err := os.ReadFile(p); err == nil {
					out[p] = src
				}
			}
			return nil
		})
	}
	return out
}

// previewOptions are the language server's options (lsp/settings.go).
func previewOptions(path string) Options {
	abs, _ := filepath.Abs(path)
	return Options{Path: abs, Reference: "auto", PerfAhead: 32, PerfWork: PublishWork}
}

// published is what the language server publishes for snap, once its
// performance warnings are all known.
func published(snap *Snapshot) []diag.Diagnostic {
	ds := append(slices.Clone(snap.Diags), snap.PerfDiags()...)
	diag.Sort(ds)
	return ds
}

// multiCaseTxLines returns the 0-based lines holding a Tx call inside a
// def with several case records of snap.
func multiCaseTxLines(snap *Snapshot) []int {
	src := snap.File.Src
	var out []int
	seen := map[int]bool{}
	for _, v := range snap.Kernels {
		if v.Kernel.CaseCount < 2 {
			continue
		}
		sp := v.ToFile(v.Kernel.Span)
		line := strings.Count(string(src[:sp.Start]), "\n")
		for _, l := range strings.Split(string(src[sp.Start:sp.End]), "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "Tx.") && strings.Contains(t, "(") && !seen[line] {
				seen[line] = true
				out = append(out, line)
			}
			line++
		}
	}
	return out
}

// previewThenAnalyze makes the preview of f after s's last version, then
// analyses f completely; the preview is nil (and reported) when none was
// made.
func previewThenAnalyze(t *testing.T, s *Session, f *source.File) (*Preview, *Snapshot) {
	t.Helper()
	pv := s.preview(f)
	if pv == nil {
		t.Errorf("%s: no preview", f.Name)
		return nil, nil
	}
	snap, err := s.Analyze(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return pv, snap
}

// insertAt returns src with text inserted after the first '(' of line.
func insertAt(src []byte, line int, text string) []byte {
	ls := strings.SplitAfter(string(src), "\n")
	i := strings.IndexByte(ls[line], '(') + 1
	ls[line] = ls[line][:i] + text + ls[line][i:]
	return []byte(strings.Join(ls, ""))
}

func fmtDiags(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %v %s[%s] %s\n", d.Span, d.Severity, d.Code, d.Message)
	}
	return b.String()
}

// TestPreviewExact: an edit that changes no case's outcome (a space after
// a call's parenthesis, in a def with several cases) previews exactly the
// diagnostics the complete analysis publishes, on every program with such
// a def.
func TestPreviewExact(t *testing.T) {
	n := 0
	for p, src := range previewSources(t) {
		opts := previewOptions(p)
		s := NewSession(opts)
		prev, err := s.Analyze(context.Background(), source.NewFile(p, src))
		if err != nil {
			t.Fatal(err)
		}
		published(prev) // the warnings the server published for it
		lines := multiCaseTxLines(prev)
		if len(lines) == 0 {
			continue
		}
		n++
		f := source.NewFile(p, insertAt(src, lines[len(lines)/2], " "))
		pv, snap := previewThenAnalyze(t, s, f)
		if pv == nil {
			continue
		}
		want := published(snap)
		if got := fmtDiags(pv.Diags); got != fmtDiags(want) {
			t.Errorf("%s: the preview differs from the complete analysis\nonly in the preview:\n%sonly in the complete list:\n%s", p, lineDiff(got, fmtDiags(want)), lineDiff(fmtDiags(want), got))
		}
	}
	if n == 0 {
		t.Fatal("no program with a def of several cases")
	}
	t.Logf("%d programs", n)
}

// lineDiff returns the lines of a that b does not have.
func lineDiff(a, b string) string {
	in := map[string]int{}
	for _, l := range strings.SplitAfter(b, "\n") {
		in[l]++
	}
	var out strings.Builder
	for _, l := range strings.SplitAfter(a, "\n") {
		if in[l] > 0 {
			in[l]--
			continue
		}
		out.WriteString(l)
	}
	return out.String()
}

// previewedCallLines returns the 0-based lines of the tile calls a
// preview of src analyses (those decided with one case per def) in the
// defs that have several cases, each line starting with its call.
func previewedCallLines(prev *Snapshot, opts Options) []int {
	multi := map[source.Span]bool{}
	for _, v := range prev.Kernels {
		if v.Kernel.CaseCount > 1 {
			multi[v.ToFile(v.Kernel.Span)] = true
		}
	}
	opts.MaxCases = 1
	lim := Analyze(prev.File, opts)
	src := prev.File.Src
	var out []int
	seen := map[int]bool{}
	for _, k := range lim.Kernels {
		if !multi[k.Span] {
			continue
		}
		for _, d := range k.Calls {
			at := d.Call.Span.Start
			ls := strings.LastIndexByte(string(src[:at]), '\n') + 1
			line := strings.Count(string(src[:at]), "\n")
			if strings.TrimSpace(string(src[ls:at])) == "" && !seen[line] {
				seen[line] = true
				out = append(out, line)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestPreviewFresh: an edit that breaks a call the preview analyses, in
// a def with several cases (its op misspelt), is reported by the preview as
// the complete analysis reports it: every diagnostic of the complete list
// on the edited line is in the preview, with or without its case
// qualification. (A call only later cases run, or a def only they
// build, is the preview's blind spot: its findings come with the complete
// publish.)
func TestPreviewFresh(t *testing.T) {
	n := 0
	for p, src := range previewSources(t) {
		s := NewSession(previewOptions(p))
		prev, err := s.Analyze(context.Background(), source.NewFile(p, src))
		if err != nil {
			t.Fatal(err)
		}
		published(prev)
		lines := previewedCallLines(prev, previewOptions(p))
		if len(lines) == 0 {
			continue
		}
		line := lines[len(lines)/2]
		ls := strings.SplitAfter(string(src), "\n")
		paren := strings.IndexByte(ls[line], '(')
		ls[line] = ls[line][:paren] + "_typo" + ls[line][paren:]
		f := source.NewFile(p, []byte(strings.Join(ls, "")))
		pv, snap := previewThenAnalyze(t, s, f)
		if pv == nil {
			continue
		}
		lo := source.Pos(len(strings.Join(ls[:line], "")))
		hi := lo + source.Pos(len(ls[line]))
		shown := map[string]bool{}
		for _, d := range pv.Diags {
			msg := d.Message
			if b, ok := caseBase(msg); ok {
				msg = b
			}
			shown[fmt.Sprint(d.Span, d.Code, msg)] = true
		}
		found := 0
		for _, d := range published(snap) {
			if d.Span.Start < lo || d.Span.Start >= hi {
				continue
			}
			found++
			msg := d.Message
			if b, ok := caseBase(msg); ok {
				msg = b
			}
			if !shown[fmt.Sprint(d.Span, d.Code, msg)] {
				t.Errorf("%s:%d: the preview misses %s[%s] %s", p, line+1, d.Severity, d.Code, d.Message)
			}
		}
		if found > 0 {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no misspelt call was reported")
	}
	t.Logf("%d programs", n)
}

// TestPreviewLaterCase: an edit in a call only later CONFIGS entries run
// (configs.py's odd widths copy their edge back) previews the first of
// those cases: the misspelt op is in the preview, and a white-space edit
// there still previews exactly the complete list.
func TestPreviewLaterCase(t *testing.T) {
	const p = "testdata/preview/configs.py"
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(src), "Tx.warp.copy(B[1, 0:W]")
	if at < 0 {
		t.Fatal("no odd-width call in " + p)
	}
	paren := at + len("Tx.warp.copy")
	for _, tc := range []struct {
		name  string
		text  string
		exact bool
	}{
		{"typo", string(src[:paren]) + "y" + string(src[paren:]), false},
		{"space", string(src[:paren+1]) + " " + string(src[paren+1:]), true},
	} {
		s := NewSession(previewOptions(p))
		prev, err := s.Analyze(context.Background(), source.NewFile(p, src))
		if err != nil {
			t.Fatal(err)
		}
		published(prev)
		f := source.NewFile(p, []byte(tc.text))
		p0, oldEnd, newEnd := diffRegion(src, f.Src)
		e := edit{at: source.Pos(p0), oldEnd: source.Pos(oldEnd), delta: source.Pos(newEnd - oldEnd)}
		if id := editedCase(prev, e); id != "w5_p0" {
			t.Errorf("%s: the preview analyses case %q, want w5_p0 (the first odd width)", tc.name, id)
		}
		pv, snap := previewThenAnalyze(t, s, f)
		if pv == nil {
			continue
		}
		if tc.exact {
			if got, want := fmtDiags(pv.Diags), fmtDiags(published(snap)); got != want {
				t.Errorf("%s: the preview differs from the complete analysis\nonly in the preview:\n%sonly in the complete list:\n%s", tc.name, lineDiff(got, want), lineDiff(want, got))
			}
			continue
		}
		if !strings.Contains(fmtDiags(pv.Diags), "copyy") {
			t.Errorf("%s: the preview misses the misspelt op:\n%s", tc.name, fmtDiags(pv.Diags))
		}
	}
}
