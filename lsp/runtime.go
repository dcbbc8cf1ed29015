package lsp

import (
	"os"
	"runtime/debug"
)

// memoryLimit is the soft memory limit of the tilels server process. The
// live heap is about 2.9 MB per open 3,000-line file (twenty such files:
// 57 MB), but without a limit the garbage collector lets the heap grow to
// three times that at the CLI's GOGC=200, and the resident set of the
// server with twenty files open was 176-179 MB (GOGC=100: 140-144 MB).
// With this limit it is 120-124 MB (BenchmarkResidentMemory20Files, three
// runs each). Past the limit (many more open files) the collector simply
// runs more often.
const memoryLimit = 120 << 20

// TuneRuntime applies the runtime settings the language server runs with
// (the soft memory limit above), unless GOMEMLIMIT is set. cmd/tilels
// calls it in server mode, after lower.TuneRuntime.
func TuneRuntime() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
