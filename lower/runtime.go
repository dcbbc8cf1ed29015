package lower

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/tilels/tilels/perf/memory"
)

// gcPercent is the garbage-collector target the tilels binary runs with.
// Analysing a 3,000-line file allocates about 13 MB against a live heap of
// a few MB, so at Go's default (100) the collector runs several times per
// analysis. Measured with BenchmarkLowerCUDA3000 on the 2-core dev machine
// (4 runs each): GOGC=100 16.9–21.2 ms/op, GOGC=200 12.8–15.0 ms/op,
// GOGC=400 12.8–18.5 ms/op (no better, more memory). 200 it is.
const gcPercent = 200

// TuneRuntime applies the runtime settings the tilels binary uses (the
// garbage-collector target above) unless the user set GOGC. The CLI and the
// benchmarks call it, so the benchmarks measure what ships.
func TuneRuntime() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// oneShotLimit is the heap `tilels --lower` grows to before its first
// collection.
//
// A one-shot run allocates in proportion to its input and exits: the
// 3,000-line benchmark file allocates 17 MB, a 30,000-line file 170 MB,
// and nothing of it needs to be collected before the process ends. So
// the collector is off until the heap reaches this limit (then it runs
// as the memory limit asks): the 3,000-line `--lower --emit json` went
// from 36.6 to 29.9 ms of wall time and 34.7 to 28.0 ms of CPU (whole
// processes, medians of 21, busy 2-core dev machine), at the same peak
// RSS (27 MB). Files under the evaluation budgets stay under the limit;
// a hostile file that allocates more (a file-wide step budget of
// short-lived values) is collected at it, and one whose live heap passes
// half of it (the IR budget: 16,384 dispatched tile calls hold about 150
// MB) goes back to gcPercent with no limit, so the collector never runs
// back to back against a heap it cannot shrink.
const oneShotLimit = 256 << 20

// TuneOneShot applies the runtime settings of `tilels --lower`, a
// short-lived process (above), unless the user set GOGC or GOMEMLIMIT;
// then it is TuneRuntime. It also turns on the memory figures' lazy keys
// (perf/memory.SetLazyKeys): such a process analyses each kernel once.
func TuneOneShot() {
	memory.SetLazyKeys(true)
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		TuneRuntime()
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(oneShotLimit)
	watchHeap()
}

// watchHeap checks the live heap after each collection, and at the first
// one that leaves more than half of oneShotLimit live, restores the
// collector's proportional target and lifts the limit.
func watchHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		// A sentinel becomes unreachable at once; its finalizer runs after
		// the next collection. 16 bytes: not batched by the tiny allocator.
		s := new([2]uintptr)
		runtime.SetFinalizer(s, func(*[2]uintptr) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > oneShotLimit/2 {
				debug.SetGCPercent(gcPercent)
				debug.SetMemoryLimit(math.MaxInt64)
				return
			}
			arm()
		})
	}
	arm()
}
