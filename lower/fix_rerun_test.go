package lower

import (
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// TestRerunShared: the copies of a kernel that reads a module constant
// (the benchmark corpus's small_tile, `ROWS, COLS = 4, 6`) share the
// fix of their fallback-only warnings, the constant's 6 -> 8. With the
// reruns kept per snapshot, every warning gets the same fix first as
// without, from fewer analyses of changed files.
func TestRerunShared(t *testing.T) {
	src := bigFile(t, 600)
	run := func(share bool) ([]diag.Diagnostic, int64) {
		defer func(old bool) { shareReruns = old }(shareReruns)
		shareReruns = share
		res := Analyze(source.NewFile("big.py", src), Options{})
		before := reanalyses.Load()
		FixFirstResult(res, Options{})
		return res.Diags, reanalyses.Load() - before
	}
	want, n0 := run(false)
	got, n := run(true)
	if !slices.EqualFunc(got, want, func(a, b diag.Diagnostic) bool { return a.Span == b.Span && a.Message == b.Message }) {
		t.Errorf("the diagnostics differ with the reruns kept:\n%v\nwant\n%v", got, want)
	}
	warnings := 0
	for _, d := range got {
		if d.Code == CodeFallbackOnly {
			warnings++
			if !strings.Contains(d.Message, "; fix: change the tile extent 6 to 8 (gmem_smem applies, verified)") {
				t.Errorf("%v: %s: want the shared fix first", d.Span, d.Message)
			}
		}
	}
	if warnings < 4 {
		t.Errorf("%d fallback-only warnings, want the copies' (4 or more)", warnings)
	}
	if n >= n0 {
		t.Errorf("%d analyses of changed files with the reruns kept, %d without: want fewer", n, n0)
	}
	t.Logf("%d warnings: %d analyses, %d without the reruns kept", warnings, n, n0)
}

// TestNoteOnly: the note FixFirstResult computes from the first verified
// fix alone is the note of the three fixes a code action computes.
func TestNoteOnly(t *testing.T) {
	res := Analyze(source.NewFile("big.py", bigFile(t, 600)), Options{})
	alone, full := snapshotOf(res), snapshotOf(res)
	n := 0
	for _, d := range res.Diags {
		if d.Code != CodeFallbackOnly {
			continue
		}
		n++
		got, want := alone.noteOnly(Options{}, d), full.FallbackNote(Options{}, d)
		if got != want || want == "" {
			t.Errorf("%v: note %q, want %q (non-empty)", d.Span, got, want)
		}
		if fixes := full.fallbackFixes(Options{}, d); len(fixes) < 2 {
			t.Errorf("%v: %d fixes offered, want several (the note's is the first)", d.Span, len(fixes))
		}
	}
	if n == 0 {
		t.Fatal("no fallback-only warning")
	}
}
