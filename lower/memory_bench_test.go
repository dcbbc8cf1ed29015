package lower

import (
	"math"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/perf/memory"
)

// BenchmarkAnalyzeMemory3000 is BenchmarkAnalyze3000's whole-file lower
// without (mode=off) and with the memory figures of every kernel and the
// performance warnings (Kernel.Memory, PerfDiags' work): mode=cold starts
// each iteration with an empty content cache (the first analysis of a
// file; the corpus repeats its example kernels, which the cache simulates
// once), mode=warm keeps it (a file analysed again after an edit that did
// not change the kernels' lowering), mode=uncached simulates every kernel
// (one goroutine). cold and warm compute the kernels' warnings as
// PerfReport and PerfDiags do (perfAll: GOMAXPROCS goroutines, as the
// lower itself runs its kernels).
// The memory analysis must add at most 10 % (issue 17). Compare the modes
// with benchstat -col /mode.
func BenchmarkAnalyzeMemory3000(b *testing.B) {
	src := bigFile(b, 3000)
	for _, mode := range []string{"off", "cold", "ahead", "warm", "uncached"} {
		b.Run("mode="+mode, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				opts := Options{}
				if mode == "ahead" {
					// the figures computed in the dispatch pipe, each
					// kernel's right after its lowering (perf_ahead.go)
					memory.ResetCache()
					opts.PerfAhead = math.MaxInt32
				}
				res := Analyze(source.NewFile("big.py", src), opts)
				switch mode {
				case "ahead":
					perfAll(res.Kernels) // returns at once: computed ahead
				case "cold":
					memory.ResetCache()
					fallthrough
				case "warm":
					perfAll(res.Kernels) // PerfReport's and PerfDiags' first step
				case "uncached":
					for _, k := range res.Kernels {
						_ = memory.Analyze(k.Lowered, k.Launch)
					}
				}
			}
			cpu.report(b)
		})
	}
}

// BenchmarkMemoryOnly3000 is the memory analysis alone of every kernel of
// the 3,000-line file, without the content cache (memory.Analyze), to
// compare with BenchmarkAnalyze3000 (the whole-file lower it adds to).
func BenchmarkMemoryOnly3000(b *testing.B) {
	src := bigFile(b, 3000)
	res := Analyze(source.NewFile("big.py", src), Options{})
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range res.Kernels {
			_ = memory.Analyze(k.Lowered, k.Launch)
		}
	}
}

// BenchmarkMemoryCold3000 is what mode=cold adds, alone and on one
// goroutine (mode=cold spreads it over GOMAXPROCS): the memory
// figures of every kernel of the 3,000-line file from an empty content
// cache (the keying of all 157 kernels, the analysis of the distinct
// ones). Run it with BenchmarkAnalyze3000 (the whole-file lower) in the
// same run and compare the medians: the bound is 10 %.
func BenchmarkMemoryCold3000(b *testing.B) {
	src := bigFile(b, 3000)
	res := Analyze(source.NewFile("big.py", src), Options{})
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		memory.ResetCache()
		for _, k := range res.Kernels {
			_ = memory.Cached(k.Lowered, k.Launch)
		}
	}
}
