package lower

import (
	"os"
	"testing"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/dsl/tirxlib"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/ir"
)

// TestMain applies the runtime settings of the tilels binary, so that the
// benchmarks measure what ships (see TuneRuntime).
func TestMain(m *testing.M) {
	TuneRuntime()
	os.Exit(m.Run())
}

// bigFile is the shared benchmark corpus (internal/benchcorpus) of at
// least lines lines.
func bigFile(tb testing.TB, lines int) []byte {
	src, err := benchcorpus.Build("../testdata/examples", lines)
	if err != nil {
		tb.Fatal(err)
	}
	return []byte(src)
}

// BenchmarkAnalyze3000 is the whole-file lower of a 3,000-line file of
// kernels: parse, evaluate, dispatch every call (target ≤ 20 ms).
//
// TILELS_BENCH_REFERENCE chooses the profile (0.25, 0.26, 0.27; unset: the
// corpus's own pin, 0.25), so that benchstat compares whole-file lowering
// time per profile against an older tree's run of the same benchmark.
func BenchmarkAnalyze3000(b *testing.B) {
	src := bigFile(b, 3000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	opts := Options{Reference: os.Getenv("TILELS_BENCH_REFERENCE")}
	for b.Loop() {
		res := Analyze(source.NewFile("big.py", src), opts)
		if len(res.Kernels) == 0 {
			b.Fatal("no kernels")
		}
	}
}

// BenchmarkLowerCUDA3000 adds printing the .cu file of every kernel.
func BenchmarkLowerCUDA3000(b *testing.B) {
	src := bigFile(b, 3000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		res := Analyze(source.NewFile("big.py", src), Options{})
		if _, err := CUDA(res.Kernels, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBigFile(t *testing.T) {
	src := bigFile(t, 3000)
	res := Analyze(source.NewFile("big.py", src), Options{})
	calls := 0
	for _, k := range res.Kernels {
		for _, c := range k.Calls {
			calls++
			if c.Variant == "" {
				t.Errorf("%s: a call got no variant", k.Name)
			}
		}
	}
	if len(res.Kernels) < 100 || calls < 300 {
		t.Errorf("3,000-line file: %d kernels, %d calls; the generator is broken", len(res.Kernels), calls)
	}
	if res.HasErrors() {
		for _, d := range res.Diags {
			t.Log(d)
		}
		t.Error("the generated file has errors")
	}
}

// BenchmarkDispatch3000 is the dispatch pass alone, sequential (Lower of
// every kernel of the 3,000-line file, evaluated once outside the loop).
func BenchmarkDispatch3000(b *testing.B) {
	src := bigFile(b, 3000)
	res := Analyze(source.NewFile("big.py", src), Options{})
	fns := make([]*ir.Func, len(res.Kernels))
	for i, k := range res.Kernels {
		fns[i] = k.Func
	}
	target := Options{}.Target()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		for _, fn := range fns {
			registry().Lower(fn, target)
		}
	}
}

// BenchmarkPrintCUDA3000 is CUDA printing alone (the .cu file of every
// kernel of the 3,000-line file, analysed once outside the loop).
func BenchmarkPrintCUDA3000(b *testing.B) {
	src := bigFile(b, 3000)
	res := Analyze(source.NewFile("big.py", src), Options{})
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CUDA(res.Kernels, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalDispatch3000 is evaluation plus dispatch of every call of the
// 3,000-line file, with the parse done once outside the loop.
func BenchmarkEvalDispatch3000(b *testing.B) {
	src := bigFile(b, 3000)
	syn, _ := syntax.Parse(source.NewFile("big.py", src))
	target := Options{}.Target()
	reg := registry()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		prog := eval.Evaluate(syn, eval.Options{Library: tirxlib.Library()})
		for _, k := range prog.Kernels {
			reg.Lower(k.Func, target)
		}
	}
}

// BenchmarkPrintCUDA3000Lines is BenchmarkPrintCUDA3000 with the #line
// directives tilels --lower prints by default.
func BenchmarkPrintCUDA3000Lines(b *testing.B) {
	src := bigFile(b, 3000)
	f := source.NewFile("big.py", src)
	res := Analyze(f, Options{})
	opts := Options{LineDirectives: &LineDirectives{Source: f}}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CUDA(res.Kernels, opts); err != nil {
			b.Fatal(err)
		}
	}
}
