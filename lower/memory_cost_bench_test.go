package lower

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/perf/memory"
)

// cpuClock measures the CPU time the process spends in a benchmark's loop
// (user and system, every thread: the lower and the analysis run on
// GOMAXPROCS goroutines, the collector too). On a machine shared with
// other jobs it moves far less than wall time, which counts the waits
// for a core.
type cpuClock struct{ start time.Duration }

// (processCPU: session_file_bench_test.go)

func startCPU() cpuClock { return cpuClock{processCPU()} }

// report adds the metric cpu-ms/op (CPU time per iteration).
func (c cpuClock) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPU()-c.start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkAnalyzeMemoryGoldens is BenchmarkAnalyzeMemory3000's pair
// (mode=off: the whole-file lower; mode=cold: the lower plus the memory
// figures and performance warnings of every kernel from an empty content
// cache) on the golden programs (testdata/*.txtar, each lowered as its
// own file): unlike the 3,000-line corpus, which repeats seven example
// files, nearly every kernel here is distinct, so the content cache
// saves nothing and every kernel is simulated.
func BenchmarkAnalyzeMemoryGoldens(b *testing.B) {
	files := goldenFiles(b)
	size := 0
	for _, f := range files {
		size += len(f.Src)
	}
	for _, mode := range []string{"off", "cold"} {
		b.Run("mode="+mode, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				if mode == "cold" {
					memory.ResetCache()
				}
				for _, f := range files {
					res := Analyze(f, Options{})
					if mode == "cold" {
						perfAll(res.Kernels)
					}
				}
			}
			cpu.report(b)
		})
	}
}

// goldenFiles reads the golden programs lowered with the default options
// (testdata/*.txtar without an options section), each as its own file.
func goldenFiles(b testing.TB) []*source.File {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		b.Fatalf("no golden files: %v", err)
	}
	var files []*source.File
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := ar.Get("options"); ok {
			continue // lowered with options of their own
		}
		if src, ok := ar.Get("kernel.py"); ok {
			files = append(files, source.NewFile(filepath.Base(p)+"/kernel.py", src))
		}
	}
	return files
}

// BenchmarkAnalyzeMemoryDir is BenchmarkAnalyzeMemoryGoldens's pair on
// the .py files under $TILELS_BENCH_DIR (e.g. the 128-file corpus of
// docs/coverage.md), each lowered at its own path so that its workspace
// imports resolve; nothing runs when the variable is not set. The ratio
// of issue 17 is cpu-ms/op of mode=cold over mode=off, minus one.
func BenchmarkAnalyzeMemoryDir(b *testing.B) {
	dir := os.Getenv("TILELS_BENCH_DIR")
	if dir == "" {
		return
	}
	files, opts, size := benchDir(b, dir)
	for _, mode := range []string{"off", "cold"} {
		b.Run("mode="+mode, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				if mode == "cold" {
					memory.ResetCache()
				}
				for i, f := range files {
					res := Analyze(f, opts[i])
					if mode == "cold" {
						perfAll(res.Kernels)
					}
				}
			}
			cpu.report(b)
		})
	}
}

// BenchmarkMemoryShare3000 splits mode=cold of BenchmarkAnalyzeMemory3000
// in its two parts, each timed alone so that the noise of one does not
// hide the other: part=lower is the whole-file lower of the 3,000-line
// file, part=analysis the memory figures and performance warnings of its
// kernels from an empty content cache (perfAll on fresh copies of the
// records lowered before the loop, GOMAXPROCS goroutines as in mode=cold).
// The ratio is analysis/lower: benchstat -col /part, on cpu-ms/op.
// part=analysis also reports work-cpu-ms/op, the CPU time of perfAll
// alone: cpu-ms/op counts the loop's setup too (the record copies and
// the cache reset, done with the timer stopped), and the collection of
// their garbage.
func BenchmarkMemoryShare3000(b *testing.B) {
	src := bigFile(b, 3000)
	res := Analyze(source.NewFile("big.py", src), Options{})
	for _, part := range []string{"lower", "analysis", "analysis-cli"} {
		b.Run("part="+part, func(b *testing.B) {
			if part == "analysis-cli" {
				memory.SetLazyKeys(true)
				defer memory.SetLazyKeys(false)
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			ks := make([]*Kernel, len(res.Kernels))
			var work time.Duration
			cpu := startCPU()
			for b.Loop() {
				if part == "lower" {
					if r := Analyze(source.NewFile("big.py", src), Options{}); len(r.Kernels) == 0 {
						b.Fatal("no kernels")
					}
					continue
				}
				b.StopTimer()
				for i, k := range res.Kernels {
					c := *k
					c.mem = &memCell{}
					ks[i] = &c
				}
				memory.ResetCache()
				b.StartTimer()
				c0 := processCPU()
				perfAll(ks)
				work += processCPU() - c0
			}
			cpu.report(b)
			if part == "analysis" && b.N > 0 {
				b.ReportMetric(float64(work)/float64(time.Millisecond)/float64(b.N), "work-cpu-ms/op")
			}
		})
	}
}

// benchDir reads the .py files under dir, each with the Options that
// lower it at its own path.
func benchDir(b *testing.B, dir string) (files []*source.File, opts []Options, size int) {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".py" {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, source.NewFile(p, src))
		opts = append(opts, Options{Path: p})
		size += len(src)
		return nil
	})
	if err != nil || len(files) == 0 {
		b.Fatalf("no .py files under %s: %v", dir, err)
	}
	return files, opts, size
}

// BenchmarkMemoryShareDir is BenchmarkMemoryShare3000 on the files under
// $TILELS_BENCH_DIR (nothing runs without it): part=lower lowers every
// file, part=analysis computes the memory figures and warnings of every
// kernel from an empty content cache (fresh copies of the records lowered
// before the loop), every kernel keyed for the cache as the language
// server keys them; part=analysis-cli the same with the lazy keys
// `tilels --lower` uses (lower.TuneOneShot: a kernel is keyed only when
// another like it is analysed too). Timed apart, each part's noise no
// longer hides in a difference of two totals ten times its size: the
// issue's ratio is analysis/lower, benchstat -col /part on cpu-ms/op.
func BenchmarkMemoryShareDir(b *testing.B) {
	files, opts, size, all, ok := benchDirKernels(b)
	if !ok {
		return
	}
	for _, part := range []string{"lower", "analysis", "analysis-cli"} {
		b.Run("part="+part, func(b *testing.B) {
			if part == "analysis-cli" {
				memory.SetLazyKeys(true)
				defer memory.SetLazyKeys(false)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			ks := make([]*Kernel, len(all))
			cpu := startCPU()
			for b.Loop() {
				if part == "lower" {
					for i, f := range files {
						Analyze(f, opts[i])
					}
					continue
				}
				b.StopTimer()
				for i, k := range all {
					c := *k
					c.mem = &memCell{}
					ks[i] = &c
				}
				memory.ResetCache()
				b.StartTimer()
				perfAll(ks)
			}
			cpu.report(b)
		})
	}
}

// BenchmarkMemoryShareFiles is the ratio file by file: each file
// under $TILELS_BENCH_DIR (or each golden program when it is not set) is
// lowered, then its kernels' memory figures and warnings are computed
// from an empty content cache, on one goroutine, the best of three timings
// of each part kept. The aggregate ratio of BenchmarkMemoryShareDir hides
// small files behind a few slow lowers (flash_attention4.py's lower is a
// quarter of the corpus's); this reports how the files spread:
// pct-p50/op and pct-p90/op (the median and 90th percentile of the files'
// analysis/lower, in percent), files-over-10pct/op and
// files-over-100pct/op, and pct-total/op (the sum of the analyses over
// the sum of the lowers). keys=lsp keys every kernel for the content
// cache, as the language server does; keys=cli with the lazy keys of
// `tilels --lower` (perf/memory.SetLazyKeys), which analyses a file
// once.
func BenchmarkMemoryShareFiles(b *testing.B) {
	var files []*source.File
	var opts []Options
	if dir := os.Getenv("TILELS_BENCH_DIR"); dir != "" {
		files, opts, _ = benchDir(b, dir)
	} else {
		files = goldenFiles(b)
		opts = make([]Options, len(files))
	}
	for _, keys := range []string{"lsp", "cli"} {
		b.Run("keys="+keys, func(b *testing.B) {
			if keys == "cli" {
				memory.SetLazyKeys(true)
				defer memory.SetLazyKeys(false)
			}
			shareFiles(b, files, opts)
		})
	}
}

func shareFiles(b *testing.B, files []*source.File, opts []Options) {
	for b.Loop() {
		var pcts []float64
		var lowers, analyses time.Duration
		over10, over100 := 0, 0
		type row struct {
			name   string
			lo, an time.Duration
		}
		var over []row
		for i, f := range files {
			lo, an := time.Duration(1<<62), time.Duration(1<<62)
			for range 3 {
				t0 := time.Now()
				res := Analyze(f, opts[i])
				lo = min(lo, time.Since(t0))
				memory.ResetCache()
				t0 = time.Now()
				for _, k := range res.Kernels {
					kernelPerf(k)
				}
				an = min(an, time.Since(t0))
			}
			lowers += lo
			analyses += an
			pct := 100 * float64(an) / float64(max(lo, 1))
			pcts = append(pcts, pct)
			if pct > 10 {
				over10++
				over = append(over, row{f.Name, lo, an})
			}
			if pct > 100 {
				over100++
			}
		}
		slices.Sort(pcts)
		if len(pcts) == 0 {
			b.Fatal("no files")
		}
		slices.SortFunc(over, func(x, y row) int { return cmp.Compare(y.an*1000/max(y.lo, 1), x.an*1000/max(x.lo, 1)) })
		for _, r := range over { // (with -v: which files the bound fails on)
			b.Logf("%5.0f%%  lower %7.2f ms  analysis %7.2f ms  %s", 100*float64(r.an)/float64(max(r.lo, 1)), float64(r.lo)/1e6, float64(r.an)/1e6, r.name)
		}
		b.ReportMetric(pcts[len(pcts)/2], "pct-p50/op")
		b.ReportMetric(pcts[len(pcts)*9/10], "pct-p90/op")
		b.ReportMetric(float64(over10), "files-over-10pct/op")
		b.ReportMetric(float64(over100), "files-over-100pct/op")
		b.ReportMetric(100*float64(analyses)/float64(max(lowers, 1)), "pct-total/op")
	}
}

// BenchmarkMemoryShareBest is the ratio measured so that a
// machine shared with other jobs disturbs it least: each iteration
// lowers a file set and computes its kernels' figures and warnings (fresh
// records, an empty content cache, perfAll) three times, alternately,
// and the benchmark keeps the fastest of each part over all its
// iterations, in CPU time, each part started after a collection (so that
// the other part's garbage is not collected in its time). It reports, for the 3,000-line file and for
// the golden programs, pct-<set> (the fastest analysis over the fastest
// lower, in percent) and the two times (lower-<set>-ms,
// analysis-<set>-ms). The fastest passes are mostly those no garbage
// collection fell into: the medians of BenchmarkMemoryShare3000 and
// BenchmarkAnalyzeMemoryGoldens count the collections, and spread by
// 15-50 % on a busy machine.
func BenchmarkMemoryShareBest(b *testing.B) {
	type set struct {
		name   string
		files  []*source.File
		all    []*Kernel
		lo, an time.Duration
	}
	sets := []*set{{name: "3000", files: []*source.File{source.NewFile("big.py", bigFile(b, 3000))}}, {name: "goldens", files: goldenFiles(b)}}
	for _, s := range sets {
		for _, f := range s.files {
			s.all = append(s.all, Analyze(f, Options{}).Kernels...)
		}
		s.lo, s.an = time.Duration(1<<62), time.Duration(1<<62)
	}
	for b.Loop() {
		for _, s := range sets {
			ks := make([]*Kernel, len(s.all))
			for range 3 {
				runtime.GC() // (no collection of the other part's garbage in this one's time)
				c0 := processCPU()
				for _, f := range s.files {
					Analyze(f, Options{})
				}
				s.lo = min(s.lo, processCPU()-c0)
				for i, k := range s.all {
					c := *k
					c.mem = &memCell{}
					ks[i] = &c
				}
				memory.ResetCache()
				runtime.GC()
				c0 = processCPU()
				perfAll(ks)
				s.an = min(s.an, processCPU()-c0)
			}
		}
	}
	for _, s := range sets {
		b.ReportMetric(100*float64(s.an)/float64(max(s.lo, 1)), "pct-"+s.name)
		b.ReportMetric(float64(s.lo)/float64(time.Millisecond), "lower-"+s.name+"-ms")
		b.ReportMetric(float64(s.an)/float64(time.Millisecond), "analysis-"+s.name+"-ms")
	}
}

// BenchmarkMemoryCoverageDir measures how much of the files under
// $TILELS_BENCH_DIR (nothing runs without it) the memory analysis gives
// figures to: every dispatched tile call of every kernel record (cases
// included) whose figures are known (calls-known of calls), every CUDA
// kernel record whose whole-kernel figures are known (kernels-known of
// kernels). With -v it logs the ten commonest reasons of the calls
// without figures. A measurement, not a speed: one iteration is enough
// (-benchtime 1x).
func BenchmarkMemoryCoverageDir(b *testing.B) {
	dir := os.Getenv("TILELS_BENCH_DIR")
	if dir == "" {
		return
	}
	files, opts, _ := benchDir(b, dir)
	var calls, callsKnown, kernels, kernelsKnown int
	reasons := map[string]int{}
	for b.Loop() {
		calls, callsKnown, kernels, kernelsKnown = 0, 0, 0, 0
		clear(reasons)
		for i, f := range files {
			res := Analyze(f, opts[i])
			perfAll(res.Kernels)
			for _, k := range res.Kernels {
				m := k.Memory()
				if m == nil || k.Target == "trn" {
					continue
				}
				kernels++
				if m.Total.Unknown == "" {
					kernelsKnown++
				}
				for _, d := range k.Calls {
					f := m.Calls[d.Call]
					if d.Variant == "" || f == nil {
						continue
					}
					calls++
					if f.Unknown == "" {
						callsKnown++
					} else {
						reasons[f.Unknown]++
					}
				}
			}
		}
	}
	b.ReportMetric(float64(calls), "calls")
	b.ReportMetric(float64(callsKnown), "calls-known")
	b.ReportMetric(float64(kernels), "kernels")
	b.ReportMetric(float64(kernelsKnown), "kernels-known")
	type reason struct {
		why string
		n   int
	}
	var rs []reason
	for why, n := range reasons {
		rs = append(rs, reason{why, n})
	}
	slices.SortFunc(rs, func(a, b reason) int { return b.n - a.n })
	for _, r := range rs[:min(10, len(rs))] {
		b.Logf("%6d %s", r.n, r.why)
	}
}

// BenchmarkMemoryAnalyzeDir is the analysis alone, without the content
// cache: memory.AnalyzeWithin on every kernel lowered from the files
// under $TILELS_BENCH_DIR (nothing runs without it), on one goroutine,
// in analyzeEach, the function a callgrind run collects in
// (docs/memory-agreement.md, "What the analysis costs"): its instruction
// count is the steady measure of a change, where this machine's timings
// move by 5-10 % from run to run.
func BenchmarkMemoryAnalyzeDir(b *testing.B) {
	_, _, _, all, ok := benchDirKernels(b)
	if !ok {
		return
	}
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		analyzeEach(all)
	}
	cpu.report(b)
}

// analyzeEach analyses every kernel of ks from scratch.
//
//go:noinline
func analyzeEach(ks []*Kernel) {
	for _, k := range ks {
		memory.AnalyzeWithin(k.Lowered, k.Launch, 0)
	}
}

// benchDirKernels reads the .py files under $TILELS_BENCH_DIR (benchDir)
// and lowers them: the files, their options, their size and every kernel
// lowered (ok false when the variable is not set).
func benchDirKernels(b *testing.B) (files []*source.File, opts []Options, size int, all []*Kernel, ok bool) {
	dir := os.Getenv("TILELS_BENCH_DIR")
	if dir == "" {
		return nil, nil, 0, nil, false
	}
	files, opts, size = benchDir(b, dir)
	for i, f := range files {
		all = append(all, Analyze(f, opts[i]).Kernels...)
	}
	return files, opts, size, all, true
}
