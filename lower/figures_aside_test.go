package lower

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestAnalyzeAside checks that AnalyzeAside's goroutine computes the
// figures of the golden programs' CUDA kernels, asked for as headless
// asks (every kernel's figures and the warnings, the warnings alone,
// the figures alone), and that they and the performance warnings are
// those Analyze's records compute: ExplainMemory and PerfWarnings of
// both, each from an empty content cache.
func TestAnalyzeAside(t *testing.T) {
	var computed atomic.Int64
	asideHook = func(*Kernel) { computed.Add(1) }
	defer func() { asideHook = nil }()
	kernels := 0
	for i, f := range goldenFiles(t) {
		// the three ways headless asks: --emit json --perf, --perf,
		// --emit json
		figures, warnings := i%3 != 1, i%3 != 2
		memory.ResetCache()
		plain := Analyze(f, Options{})
		wantMem, wantPerf := ExplainMemory(plain, Options{}), fmt.Sprint(PerfWarnings(plain))
		memory.ResetCache()
		before := computed.Load()
		aside := AnalyzeAside(f, Options{}, figures, warnings)
		if warnings {
			// (the warnings first: ExplainMemory computes every
			// record's figures)
			gotPerf := fmt.Sprint(PerfWarnings(aside))
			if gotPerf != wantPerf {
				t.Errorf("%s: warnings differ\naside: %s\nplain: %s", f.Name, gotPerf, wantPerf)
			}
		}
		if gotMem := ExplainMemory(aside, Options{}); gotMem != wantMem {
			t.Errorf("%s: figures differ\naside:\n%s\nplain:\n%s", f.Name, gotMem, wantMem)
		}
		n := 0
		for _, k := range aside.Kernels {
			if k.Lowered != nil && k.Target != "trn" {
				n++
			}
		}
		kernels += n
		if got := computed.Load() - before; got > int64(n) {
			t.Errorf("%s: the goroutine computed %d kernels' figures, the file has %d", f.Name, got, n)
		}
	}
	// (a record that asks before the goroutine comes to its kernel
	// computes the figures itself; the goroutine then skips them)
	if computed.Load() == 0 || kernels == 0 {
		t.Fatalf("the goroutine computed %d of %d kernels' figures", computed.Load(), kernels)
	}
}

// TestAnalyzeAsidePanic checks that a panic of the analysis on the
// goroutine is raised again by the record's Memory, on the caller's
// goroutine, and that the process goes on.
func TestAnalyzeAsidePanic(t *testing.T) {
	var reached atomic.Int64
	asideHook = func(*Kernel) {
		reached.Add(1)
		panic("boom")
	}
	defer func() { asideHook = nil }()
	memory.ResetCache()
	f := goldenFiles(t)[0]
	res := AnalyzeAside(f, Options{}, true, true)
	i := slices.IndexFunc(res.Kernels, func(k *Kernel) bool { return k.Lowered != nil && k.Target != "trn" })
	if i < 0 {
		t.Fatalf("%s: no CUDA kernel", f.Name)
	}
	// every kernel's cell is the goroutine's to compute: nothing else
	// asks for figures here
	n := 0
	for _, k := range res.Kernels {
		if k.Lowered != nil && k.Target != "trn" {
			n++
		}
	}
	for reached.Load() < int64(n) {
		runtime.Gosched()
	}
	got := func() (r any) {
		defer func() { r = recover() }()
		res.Kernels[i].Memory()
		return nil
	}()
	if got != "boom" {
		t.Fatalf("Memory raised %v, want the goroutine's panic", got)
	}
}
