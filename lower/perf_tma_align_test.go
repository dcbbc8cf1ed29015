package lower

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// TestTMAAlignWarning: tma_auto_plans.txtar's multi_coord issues its TMA
// copies 32 bytes apart in shared memory (an H100 stops it: docs/memory-
// agreement.md); it gets perf/misaligned, naming the buffer, the byte and
// the 128-byte rule, and no other kernel of the file does.
func TestTMAAlignWarning(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/tma_auto_plans.txtar")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := ar.Get("kernel.py")
	f := source.NewFile("kernel.py", src)
	res := Analyze(f, Options{})
	var msgs []string
	for _, d := range PerfWarnings(res) {
		if d.Code == CodeMisaligned {
			line, _ := f.Position(d.Span.Start)
			msgs = append(msgs, itoa(line)+": "+d.Message)
		}
	}
	want := "187: misaligned TMA copy: thread 0's copy reads or writes A_s at byte 32 of its storage, not a multiple of 128"
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], want) {
		t.Errorf("perf/misaligned %q, want one starting %q", msgs, want)
	}
}
