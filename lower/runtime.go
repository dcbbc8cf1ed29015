package lower

import (
	"os"
	"runtime/debug"
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
