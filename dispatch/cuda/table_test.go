package cuda

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// tableRow is one case of a spec-§6 table test: its row number and name.
type tableRow struct {
	row  int
	name string
}

// checkTable runs every case of a §6 table test through run (which returns
// the failed expectations) and enforces the knownBad contract: a listed case
// must still fail (so fixing it forces its removal), and every listed name
// must exist. It logs the row and case pass counts under label.
func checkTable(t *testing.T, label string, cases []tableRow, run func(i int) []string, knownBad map[string]string) {
	t.Helper()
	rowOK := map[int]bool{}
	seen := map[string]bool{}
	pass := 0
	for i, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %s", c.name)
		}
		seen[c.name] = true
		if _, ok := rowOK[c.row]; !ok {
			rowOK[c.row] = true
		}
		errs := run(i)
		why, isBad := knownBad[c.name]
		switch {
		case len(errs) == 0 && isBad:
			t.Errorf("%s: passes now; remove it from the known-bad list (%s)", c.name, why)
		case len(errs) == 0:
			pass++
		case isBad:
			rowOK[c.row] = false
			t.Logf("%s: known bad (%s): %s", c.name, why, strings.Join(errs, "; "))
		default:
			rowOK[c.row] = false
			t.Errorf("%s:\n  %s", c.name, strings.Join(errs, "\n  "))
		}
	}
	for name := range knownBad {
		if !seen[name] {
			t.Errorf("known-bad list names unknown case %s", name)
		}
	}
	n := 0
	for _, ok := range rowOK {
		if ok {
			n++
		}
	}
	t.Logf("%s: %d/%d rows, %d/%d cases pass", label, n, len(rowOK), pass, len(cases))
}

// releaseOf is the release a table row's kernel was written for: the
// newest when it names what only 0.26 and later register (a forced vector
// width, vec_auto, tma_auto/tma_explicit, the ops log2 and maximum), else
// the seeds' 0.25.
func releaseOf(fn *ir.Func) release.Release {
	rel := release.R025
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		tc, ok := s.(*ir.TileCall)
		if !ok {
			return
		}
		switch {
		case strings.HasPrefix(tc.Dispatch, "vec_"), strings.HasPrefix(tc.Dispatch, "tma_"),
			tc.Op == "log2", tc.Op == "maximum":
			rel = release.Newest
		}
	})
	return rel
}

// targetOf is DefaultTarget in releaseOf(fn).
func targetOf(fn *ir.Func) dispatch.Target {
	t := dispatch.DefaultTarget()
	t.Release = releaseOf(fn)
	return t
}
