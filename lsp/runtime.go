package lsp

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcPercent is the collector's target in the server: the heap may grow to
// twice what the last collection left live, whatever that is, and there
// is no memory limit. The server's live heap is what retention.go keeps:
// the analyses of the documents in use (2.9 MB per 3,000-line file) and
// the text of the others.
//
// The fixed soft limit this replaces (120 MiB) made the collector run
// almost continuously once the live heap neared it. Measured on the 2-core
// development machine (six interleaved runs each; keystroke and hover
// p99 over stdio with twenty other 3,000-line files open, resident set):
//
//	collector              with retention                     every document kept analysed
//	                       keystroke  hover    RSS (median)     keystroke  RSS
//	GOGC 200, 120 MiB      14.4 ms    0.48 ms  77–120 MiB (89)  58 ms      120–126 MiB
//	GOGC 100 (this)        12.8 ms    0.73 ms  53–70 MiB (59)   27 ms      131–203 MiB
//	GOGC from the live heap, headroom ≥ 32 MiB
//	                       13.0 ms    0.86 ms  64–81 MiB (74)   25 ms      128–202 MiB
//	same, headroom ≥ 16 MiB 13.2 ms   0.52 ms  58–72 MiB (64)   —          —
//
// With retention the latencies do not differ beyond the noise (±25–60%
// between runs on a machine shared with other work), and GOGC 100 has the
// smallest resident set; a headroom floor (fewer collections of a small
// heap) bought nothing measurable. Without retention the fixed limit is
// what doubles the keystroke's p99.
const gcPercent = 100

// TuneRuntime applies the runtime settings the language server runs with
// (the collector target above, and no memory limit), unless GOGC or
// GOMEMLIMIT is set. cmd/tilels calls it in server mode, after
// lower.TuneRuntime.
func TuneRuntime() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
		keepHeadroom()
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// gcHeadroom is the least the heap may grow between two collections in
// the server: after each collection the target becomes the larger of
// gcPercent and what lets the heap grow by gcHeadroom over what the
// collection left live (at most maxGCPercent).
//
// A keystroke in a kernel of a production file allocates about 13 MB
// (flashkda bf16_fused_m128_tx_tile.py, 4 cases) against a live heap of
// about 20 MB, so at GOGC 100 the collector ran at nearly every
// keystroke: a fifth of its CPU time (BenchmarkKeystrokeProduction/file's
// profile). Measured on the 2-core development machine (2026-11-26,
// BenchmarkKeystrokeProduction/file, 200 keystrokes a run, interleaved):
// GOGC 100 p50 20.2 ms, GOGC 200 18.1-19.8, GOGC 400 16.1-16.9 ms. The
// headroom gives a small heap the effect of a high GOGC and leaves a
// large one (twenty open files) at gcPercent, whose resident set the
// table above measured; the figures of this setting are in docs/lsp.md.
const (
	gcHeadroom   = 64 << 20
	maxGCPercent = 800
)

// keepHeadroom re-targets the collector after each collection (above);
// once per process, however often TuneRuntime is called.
func keepHeadroom() { headroomOnce.Do(armHeadroom) }

var headroomOnce sync.Once

func armHeadroom() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last := gcPercent
	var arm func()
	arm = func() {
		// A sentinel becomes unreachable at once; its finalizer runs
		// after the next collection. 16 bytes: not batched by the tiny
		// allocator.
		s := new([2]uintptr)
		runtime.SetFinalizer(s, func(*[2]uintptr) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if pct := headroomPercent(sample[0].Value.Uint64()); pct != last {
					debug.SetGCPercent(pct)
					last = pct
				}
			}
			arm()
		})
	}
	arm()
}

// headroomPercent is the collector target for a live heap of live bytes.
func headroomPercent(live uint64) int {
	if live == 0 {
		return gcPercent
	}
	pct := int(uint64(gcHeadroom) * 100 / live)
	return max(gcPercent, min(pct, maxGCPercent))
}
