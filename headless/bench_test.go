package headless

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// benchCLI runs `tilels --lower big.py --emit EMIT -o /dev/null` on the
// 3,000-line benchmark corpus, in process (what the one-shot CLI does
// after flag parsing; scripts/bench-cli measures the whole process).
func benchCLI(b *testing.B, emit string) {
	src, err := benchcorpus.Build("../testdata/examples", 3000)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "big.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	lower.TuneRuntime()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		code := Run(Config{Inputs: []string{path}, Emit: emit, Out: os.DevNull, FailOn: diag.Error,
			Stdout: io.Discard, Stderr: io.Discard})
		if code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

func BenchmarkCLIJSON3000(b *testing.B) { benchCLI(b, "json") }
func BenchmarkCLICUDA3000(b *testing.B) { benchCLI(b, "cuda") }

// BenchmarkCLIPerfShareFiles is the ratio as the CI tool gives
// it: for each file under $TILELS_BENCH_DIR (or each golden program of
// lower/testdata when it is not set, written out as its own file),
// `tilels --lower FILE -o /dev/null` in process, with and without
// --perf, each from an empty content cache, the best of three of each
// kept (wall time: with --perf the figures are computed beside the
// fixes' verification and the .cu text). It reports pct-total/op (the
// sum of the differences over the sum of the plain runs, in percent),
// pct-p50/op (the median file's), files-over-10pct/op and
// files-over-100pct/op. lower's BenchmarkMemoryShareFiles is the stricter
// measure: the analysis alone over lower.Analyze alone.
func BenchmarkCLIPerfShareFiles(b *testing.B) {
	paths := cliBenchFiles(b)
	lower.TuneRuntime()
	run := func(p string, perf bool) time.Duration {
		memory.ResetCache()
		t0 := time.Now()
		code := Run(Config{Inputs: []string{p}, Emit: "cuda", Perf: perf, Out: os.DevNull, FailOn: diag.Error,
			Stdout: io.Discard, Stderr: io.Discard})
		d := time.Since(t0)
		if code == ExitUsage {
			b.Fatalf("%s: exit %d", p, code)
		}
		return d
	}
	for b.Loop() {
		var plain, perf time.Duration
		var pcts []float64
		over10, over100 := 0, 0
		for _, p := range paths {
			a, c := time.Duration(1<<62), time.Duration(1<<62)
			for range 3 {
				a = min(a, run(p, false))
				c = min(c, run(p, true))
			}
			plain += a
			perf += c
			pct := 100 * float64(c-a) / float64(max(a, 1))
			pcts = append(pcts, pct)
			if pct > 10 {
				over10++
				// (with -v: which files the bound fails on)
				b.Logf("%5.0f%%  plain %7.2f ms  --perf %7.2f ms  %s", pct, float64(a)/1e6, float64(c)/1e6, p)
			}
			if pct > 100 {
				over100++
			}
		}
		slices.Sort(pcts)
		b.ReportMetric(100*float64(perf-plain)/float64(max(plain, 1)), "pct-total/op")
		b.ReportMetric(pcts[len(pcts)/2], "pct-p50/op")
		b.ReportMetric(float64(over10), "files-over-10pct/op")
		b.ReportMetric(float64(over100), "files-over-100pct/op")
	}
}

// cliBenchFiles lists the .py files under $TILELS_BENCH_DIR, or writes
// the golden programs' kernel.py sections to a temporary directory.
func cliBenchFiles(b *testing.B) []string {
	var paths []string
	if dir := os.Getenv("TILELS_BENCH_DIR"); dir != "" {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".py" {
				paths = append(paths, p)
			}
			return err
		})
	} else {
		goldens, _ := filepath.Glob("../lower/testdata/*.txtar")
		tmp := b.TempDir()
		for _, g := range goldens {
			ar, err := txtar.ParseFile(g)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := ar.Get("options"); ok {
				continue // lowered with options of their own
			}
			src, ok := ar.Get("kernel.py")
			if !ok {
				continue
			}
			p := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(g), ".txtar")+".py")
			if err := os.WriteFile(p, src, 0o644); err != nil {
				b.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		b.Fatal("no files")
	}
	return paths
}
