package lower

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// FuzzAnalyze runs the whole pipeline — parse, evaluate, dispatch, print
// CUDA and TIRx — on arbitrary input and checks that nothing panics and that
// every diagnostic span lies inside the file. Seeds are the bundled examples,
// the kernels of the pipeline goldens and a few hostile programs; they run
// in plain go test.
func FuzzAnalyze(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/examples/*.py")
	for _, p := range paths {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	goldens, _ := filepath.Glob("testdata/*.txtar")
	for _, p := range goldens {
		if ar, err := txtar.ParseFile(p); err == nil {
			if src, ok := ar.Get("kernel.py"); ok {
				f.Add(src)
			}
		}
	}
	// Hostile Python before a kernel (hostile_test.go): the value budget
	// stops each.
	if kernel, err := os.ReadFile("../testdata/examples/copy_gmem_smem.py"); err == nil {
		for _, snip := range hostileSnippets[:4] {
			f.Add(append([]byte(snip), kernel...))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file := source.NewFile("fuzz.py", src)
		res := Analyze(file, Options{})
		for _, d := range res.Diags {
			if d.Span.IsValid() && int(d.Span.End) > len(src) {
				t.Fatalf("diagnostic span %v past the end (%d bytes): %s", d.Span, len(src), d.Message)
			}
		}
		_ = Explain(res)
		_ = TIRx(res.Kernels)
		_, _ = CUDA(res.Kernels, Options{})
	})
}
