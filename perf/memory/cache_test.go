package memory_test

import (
	"sync"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestCachedConcurrent analyses the kernels of the benchmark corpus (each
// example kernel repeated about twenty times) from an empty cache on
// eight goroutines, so that copies of a kernel meet while its first copy
// is being analysed (Cached then waits for it), and compares every
// kernel's figures with memory.Analyze's.
func TestCachedConcurrent(t *testing.T) {
	big, err := benchcorpus.Build("../../testdata/examples", 3000)
	if err != nil {
		t.Fatal(err)
	}
	res := lower.Analyze(source.NewFile("big.py", []byte(big)), lower.Options{})
	var ks []*lower.Kernel
	for _, k := range res.Kernels {
		if k.Lowered != nil {
			ks = append(ks, k)
		}
	}
	if len(ks) < 100 {
		t.Fatalf("%d kernels", len(ks))
	}
	want := make([]string, len(ks))
	for i, k := range ks {
		want[i] = kernelText(memory.Analyze(k.Lowered, k.Launch), k)
	}
	for round := range 3 {
		memory.ResetCache()
		got := make([]string, len(ks))
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(ks); i += 8 {
					got[i] = kernelText(memory.Cached(ks[i].Lowered, ks[i].Launch), ks[i])
				}
			}()
		}
		wg.Wait()
		for i := range ks {
			if got[i] != want[i] {
				t.Errorf("round %d kernel %s: the cached figures differ:\n%s\nwant\n%s", round, ks[i].Name, got[i], want[i])
			}
		}
	}
}
