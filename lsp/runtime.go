package lsp

import (
	"math"
	"os"
	"runtime/debug"
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
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(math.MaxInt64)
	}
}
