package memory_test

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

func TestZZPy(t *testing.T) {
	p := os.Getenv("ZZPY")
	if p == "" { t.Skip() }
	src, _ := os.ReadFile(p)
	res := lower.Analyze(source.NewFile(p, src), lower.Options{Path: p})
	type row struct{ name string; d time.Duration; work int64; why map[string]int; thr int64; grid string }
	var rows []row
	var tot time.Duration
	for _, k := range res.Kernels {
		if k.Lowered == nil { continue }
		best := time.Hour
		var kk *memory.Kernel
		for range 3 {
			t0 := time.Now()
			kk = memory.Analyze(k.Lowered, k.Launch)
			best = min(best, time.Since(t0))
		}
		why := map[string]int{}
		memory.SetSkipTrace(func(s *ir.For, w string) {
			n := ""
			if s != nil { n = s.Var.Name }
			why[w+" "+n]++
		})
		memory.Analyze(k.Lowered, k.Launch)
		memory.SetSkipTrace(nil)
		rows = append(rows, row{k.Name, best, memory.Work(kk), why, k.Launch.Threads(), fmt.Sprint(k.Launch)})
		tot += best
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].d > rows[j].d })
	for i, r := range rows {
		if i < 25 { fmt.Printf("%-40s %10v work=%7d thr=%d %s %v\n", r.name, r.d, r.work, r.thr, r.grid, r.why) }
	}
	fmt.Println("kernels", len(rows), "total", tot)
}
