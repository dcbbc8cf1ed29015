package picture_test

import (
	"path/filepath"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/picture"
)

// BenchmarkDrawGoldens draws every tile call of lower/testdata (513
// calls) per iteration: lower.Pictures (the per-thread evaluation, the
// partition and the bank map) and both renderers. Reported per call.
func BenchmarkDrawGoldens(b *testing.B) {
	type call struct {
		k    *lower.Kernel
		d    *dispatch.Decision
		line int
	}
	var calls []call
	paths, _ := filepath.Glob("../lower/testdata/*.txtar")
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			b.Fatal(err)
		}
		src, ok := ar.Get("kernel.py")
		if !ok {
			continue
		}
		f := source.NewFile("kernel.py", src)
		for _, k := range lower.Analyze(f, lower.Options{}).Kernels {
			for _, d := range k.Calls {
				line, _ := f.Position(d.Call.Span.Start)
				calls = append(calls, call{k, d, line})
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range calls {
			p := lower.Pictures(c.k, c.d, c.line)
			_ = p.SVG(picture.Both)
			_ = p.Text(picture.Both)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(calls)), "ns/call")
}
