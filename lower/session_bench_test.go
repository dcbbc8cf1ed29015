package lower

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/source"
)

// The incremental front end's benchmarks: one edit of a large file
// through a Session (what the language server runs per keystroke,
// without the protocol), toggled between two versions. Each reports the
// latency percentiles of the edits (p50-ms, p99-ms, max-ms) and the
// share of edits that took the whole-file path (full/op).
//
//	keystroke: a space typed (and deleted) inside a kernel in the middle
//	comment:   a character typed (and deleted) in a comment on line 1
//	const:     a module constant that one kernel reads, 4 <-> 8
//
// Sizes 3,000, 10,000 and 30,000 lines (internal/benchcorpus); the issue's
// targets are p99 <= 25 ms for keystrokes and <= 25 / 50 ms for comments
// at 3,000 / 30,000 lines.
func BenchmarkSessionEdits(b *testing.B) {
	for _, lines := range []int{3000, 10000, 30000} {
		for _, kind := range []string{"keystroke", "comment", "const"} {
			b.Run(fmt.Sprintf("%s-%d", kind, lines), func(b *testing.B) {
				texts := sessionEditTexts(b, kind, lines)
				benchSessionEdits(b, texts)
			})
		}
	}
}

// sessionEditTexts returns the two versions an edit toggles between.
func sessionEditTexts(tb testing.TB, kind string, lines int) [2][]byte {
	src := string(bigFile(tb, lines))
	switch kind {
	case "keystroke":
		at := strings.Index(src[len(src)/2:], "[:, :])\n") + len(src)/2 + 1
		return [2][]byte{[]byte(src), []byte(src[:at] + " " + src[at:])}
	case "comment":
		src = "# header\n" + src
		return [2][]byte{[]byte(src), []byte(src[:1] + "x" + src[1:])}
	case "const":
		// A constant only one kernel (in the middle) reads.
		src = strings.Replace(src, "\n@T.prim_func\n", "\nONE_ROWS = 4\n\n@T.prim_func\n", 1)
		mid := strings.Index(src[len(src)/2:], "(ROWS, COLS), \"float32\")") + len(src)/2
		if mid < len(src)/2 {
			tb.Fatal("no small_tile kernel in the second half")
		}
		src = src[:mid] + "(ONE_ROWS, COLS), \"float32\")" + src[mid+len("(ROWS, COLS), \"float32\")"):]
		return [2][]byte{[]byte(src), []byte(strings.Replace(src, "ONE_ROWS = 4", "ONE_ROWS = 8", 1))}
	}
	tb.Fatalf("unknown edit %q", kind)
	return [2][]byte{}
}

func benchSessionEdits(b *testing.B, texts [2][]byte) {
	sess := NewSession(Options{})
	ctx := context.Background()
	if _, err := sess.Analyze(ctx, source.NewFile("big.py", texts[0])); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	full := 0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		snap, err := sess.Analyze(ctx, source.NewFile("big.py", texts[i%2]))
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if snap.Full {
			full++
		}
	}
	b.ReportMetric(float64(full)/float64(len(lat)), "full/op")
	sessionPercentiles(b, lat)
}

// sessionPercentiles reports p50, p99 and the maximum of ds in
// milliseconds (as lsp's percentiles).
func sessionPercentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		i := int(q * float64(len(ds)-1))
		return float64(ds[i].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, "max-ms")
}
