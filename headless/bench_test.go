package headless

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/lower"
)

// benchCLI runs `tilels --lower big.py --emit EMIT -o /dev/null` on the
// 3,000-line benchmark corpus, in process (what the one-shot CLI does
// after flag parsing; scripts/bench-cli measures the whole process).
func benchCLI(b *testing.B, emit string) {
	src, err := benchcorpus.Build("../testdata/examples", 3000)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "big.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	lower.TuneRuntime()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		code := Run(Config{Inputs: []string{path}, Emit: emit, Out: os.DevNull, FailOn: diag.Error,
			Stdout: io.Discard, Stderr: io.Discard})
		if code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

func BenchmarkCLIJSON3000(b *testing.B) { benchCLI(b, "json") }
func BenchmarkCLICUDA3000(b *testing.B) { benchCLI(b, "cuda") }
