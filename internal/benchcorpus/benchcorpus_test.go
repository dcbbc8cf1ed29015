package benchcorpus

import (
	"os"
	"strconv"
	"testing"
)

// TestWrite writes the corpus to $TILELS_BENCHCORPUS_OUT (at least
// $TILELS_BENCHCORPUS_LINES lines, 3,000 by default) for scripts/bench-cli;
// without the variable it only checks that the corpus builds.
func TestWrite(t *testing.T) {
	lines := 3000
	if s := os.Getenv("TILELS_BENCHCORPUS_LINES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		lines = n
	}
	src, err := Build("../../testdata/examples", lines)
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("TILELS_BENCHCORPUS_OUT")
	if out == "" {
		return
	}
	if err := os.WriteFile(out, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}
