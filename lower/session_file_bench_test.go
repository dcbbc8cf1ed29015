package lower

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	cpu0 := processCPU()
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
	// CPU time of the whole process (every goroutine, the collector's
	// too): less sensitive than latency to a machine others share.
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(len(lat)), "cpu-ms/op")
	b.ReportMetric(float64(full)/float64(len(lat)), "full/op")
	sessionPercentiles(b, lat)
}

// processCPU returns the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
