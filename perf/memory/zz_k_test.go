package memory_test

import (
	"os"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

func BenchmarkZZK(b *testing.B) {
	var ks []*lower.Kernel
	for _, p := range strings.Split(os.Getenv("ZZPY"), ",") {
		src, _ := os.ReadFile(p)
		res := lower.Analyze(source.NewFile(p, src), lower.Options{Path: p})
		for _, k := range res.Kernels {
			if k.Lowered != nil && (os.Getenv("ZZK") == "" || k.Name == os.Getenv("ZZK")) {
				ks = append(ks, k)
			}
		}
	}
	for b.Loop() {
		for _, k := range ks {
			memory.Analyze(k.Lowered, k.Launch)
		}
	}
}
