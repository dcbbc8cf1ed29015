package lower

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/source"
)

// BenchmarkSessionFile: a space typed (and deleted) after the "(" of the
// middle Tx call of the file named by $TILELS_BENCH_FILE (the largest
// TIRx-kernels file of the corpus, for issue 15's p99 <= 25 ms target),
// opened at its own path so that its workspace imports resolve, under
// the reference the file shows (Reference "auto"). What the language
// server runs per keystroke, without the protocol (lsp's
// BenchmarkKeystrokeProduction/file measures it with the protocol).
// Only run when the variable is set.
func BenchmarkSessionFile(b *testing.B) {
	path := os.Getenv("TILELS_BENCH_FILE")
	if path == "" {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		b.Fatal(err)
	}
	texts := keystrokeTexts(b, string(src))
	TuneRuntime()
	sess := NewSession(Options{Path: abs, Reference: "auto"})
	ctx := context.Background()
	if _, err := sess.Analyze(ctx, source.NewFile(abs, texts[0])); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	full := 0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		snap, err := sess.Analyze(ctx, source.NewFile(abs, texts[i%2]))
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

// keystrokeTexts returns src and src with a space after the "(" of its
// middle line that starts with "Tx." (as lsp's benchKeystrokeIn).
func keystrokeTexts(tb testing.TB, src string) [2][]byte {
	ls := strings.SplitAfter(src, "\n")
	var rows []int
	for i, l := range ls {
		if strings.HasPrefix(strings.TrimSpace(l), "Tx.") {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		tb.Fatal("no Tx call in the file")
	}
	row := rows[len(rows)/2]
	at := 0
	for _, l := range ls[:row] {
		at += len(l)
	}
	at += strings.Index(ls[row], "(") + 1
	return [2][]byte{[]byte(src), []byte(src[:at] + " " + src[at:])}
}
