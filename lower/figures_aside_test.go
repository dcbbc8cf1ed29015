package lower

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/perf/memory"
)

// TestAnalyzeAside checks that AnalyzeAside's goroutines compute the
// figures of the golden programs' CUDA kernels, asked for as headless
// asks (every kernel's figures and the warnings, the warnings alone,
// the figures alone), and that they and the performance warnings are
// those Analyze's records compute: ExplainMemory and PerfWarnings of
// both, each from an empty content cache; with one worker (2
// processors) and with several (8).
func TestAnalyzeAside(t *testing.T) {
	for _, procs := range []int{2, 8} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			testAnalyzeAside(t)
		})
	}
}

func testAnalyzeAside(t *testing.T) {
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

// TestAnalyzeAsideWorkers checks how many goroutines compute a file's
// figures at once: one on 2 processors, and several on 4 when kernels
// are queued while the first is busy (each computation held 20 ms).
func TestAnalyzeAsideWorkers(t *testing.T) {
	var f = (*source.File)(nil)
	n := 0
	for _, g := range goldenFiles(t) {
		n = 0
		for _, k := range Analyze(g, Options{}).Kernels {
			if k.Lowered != nil && k.Target != "trn" {
				n++
			}
		}
		if n >= 3 {
			f = g
			break
		}
	}
	if f == nil {
		t.Fatal("no golden program has 3 CUDA kernels")
	}
	for _, c := range []struct{ procs, atMost, atLeast int64 }{{2, 1, 1}, {4, 3, 2}} {
		var inFlight, most, done atomic.Int64
		asideHook = func(*Kernel) {
			n := inFlight.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(20 * time.Millisecond)
			inFlight.Add(-1)
			done.Add(1)
		}
		old := runtime.GOMAXPROCS(int(c.procs))
		memory.ResetCache()
		AnalyzeAside(f, Options{}, true, false)
		// every kernel's figures computed on the workers (nothing here
		// asks a record, which would compute them itself)
		for deadline := time.Now().Add(10 * time.Second); done.Load() < int64(n) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		runtime.GOMAXPROCS(old)
		asideHook = nil
		if got := done.Load(); got != int64(n) {
			t.Errorf("%s on %d processors: the workers computed %d of %d kernels' figures", f.Name, c.procs, got, n)
		}
		if got := most.Load(); got > c.atMost || got < c.atLeast {
			t.Errorf("%s on %d processors: %d kernels' figures computed at once, want %d to %d", f.Name, c.procs, got, c.atLeast, c.atMost)
		}
	}
}
