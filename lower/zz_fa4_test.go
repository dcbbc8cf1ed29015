package lower

import (
	"os"
	"testing"
	"time"

	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/perf/memory"
)

func TestZZFA4(t *testing.T) {
	_, _, _, all, ok := benchDirKernels(&testing.B{})
	_ = ok
	if os.Getenv("TILELS_BENCH_DIR") == "" {
		t.Skip()
	}
	var tot time.Duration
	for i, k := range all {
		n := 0
		ir.WalkStmts(k.Lowered.Body, func(ir.Stmt) { n++ })
		st := time.Now()
		for j := 0; j < 10; j++ {
			memory.AnalyzeWithin(k.Lowered, k.Launch, 0)
		}
		d := time.Since(st) / 10
		tot += d
		mk := memory.Analyze(k.Lowered, k.Launch)
		t.Logf("%2d %-40s stmts=%5d work=%7d threads=%d grid=%v %v", i, k.Name, n, mk.Work(), k.Launch.Threads(), k.Launch.Grid, d)
	}
	t.Logf("total %v", tot)
}

func TestZZFA4Cached(t *testing.T) {
	if os.Getenv("TILELS_BENCH_DIR") == "" {
		t.Skip()
	}
	_, _, _, all, _ := benchDirKernels(&testing.B{})
	st := time.Now()
	for _, k := range all {
		memory.Cached(k.Lowered, k.Launch)
	}
	t.Logf("cached cold %v", time.Since(st))
}
