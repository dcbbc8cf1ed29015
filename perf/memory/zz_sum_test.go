package memory_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

func TestZZSum(t *testing.T) {
	dir := os.Getenv("ZZDIR")
	if dir == "" {
		t.Skip()
	}
	type row struct {
		name string
		d    time.Duration
	}
	per := map[string]time.Duration{}
	var total time.Duration
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".py" {
			return nil
		}
		src, _ := os.ReadFile(p)
		res := lower.Analyze(source.NewFile(p, src), lower.Options{Path: p})
		for _, k := range res.Kernels {
			if k.Lowered == nil || k.Target == "trn" {
				continue
			}
			best := time.Hour
			for range 3 {
				t0 := time.Now()
				memory.Analyze(k.Lowered, k.Launch)
				best = min(best, time.Since(t0))
			}
			per[p[len(dir):]] += best
			total += best
		}
		return nil
	})
	var rows []row
	for n, d := range per {
		rows = append(rows, row{n, d})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].d > rows[j].d })
	for _, r := range rows[:12] {
		fmt.Printf("%-70s %v\n", r.name, r.d)
	}
	fmt.Println("TOTAL", total)
}
