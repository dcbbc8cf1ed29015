package lower

import (
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// BenchmarkAnalyzeMemory3000 is BenchmarkAnalyze3000's whole-file lower
// with (mode=on) and without (mode=off) the memory figures of every
// kernel and the performance warnings (Kernel.Memory, PerfDiags' work):
// the memory analysis must add at most 10 % (issue 17). Compare the modes
// with benchstat -col /mode.
func BenchmarkAnalyzeMemory3000(b *testing.B) {
	src := bigFile(b, 3000)
	for _, mode := range []string{"off", "on"} {
		b.Run("mode="+mode, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				res := Analyze(source.NewFile("big.py", src), Options{})
				if mode == "on" {
					for _, k := range res.Kernels {
						_ = kernelPerf(k)
					}
				}
			}
		})
	}
}
