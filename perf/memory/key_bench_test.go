package memory_test

import (
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// BenchmarkKey3000 is the content cache's keying alone (Cached's walk of
// the lowered code) of every kernel of the 3,000-line benchmark corpus:
// what a cold analysis pays for each kernel, repeated or not.
func BenchmarkKey3000(b *testing.B) {
	big, err := benchcorpus.Build("../../testdata/examples", 3000)
	if err != nil {
		b.Fatal(err)
	}
	res := lower.Analyze(source.NewFile("big.py", []byte(big)), lower.Options{})
	size := 0
	for _, k := range res.Kernels {
		if k.Lowered != nil {
			size += memory.KeyLen(k.Lowered, k.Launch)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range res.Kernels {
			if k.Lowered != nil {
				memory.KeyLen(k.Lowered, k.Launch)
			}
		}
	}
	b.ReportMetric(float64(size)/float64(len(res.Kernels)), "key-bytes/kernel")
}
