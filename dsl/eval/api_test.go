package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/ir"
)

// section returns section name of testdata/<file>.
func section(t testing.TB, file, name string) []byte {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("no section %s in %s", name, file)
	return nil
}

func TestBindings(t *testing.T) {
	src := section(t, "factories.txtar", "unbound.py")
	opts := eval.Options{Bindings: map[string]map[string]eval.Value{
		"_build_kernel": {"scope": eval.Str("warp"), "n_threads": eval.Int(32), "shape": eval.Tuple(eval.Int(32), eval.Int(8))},
		"test_branches": {"scope": eval.Str("warp")},
	}}
	p, _ := evalSource("unbound.py", src, opts)
	if len(p.Partial) != 0 || len(p.Diags) != 0 {
		t.Fatalf("bound factory still partial:\n%s", eval.Dump(p))
	}
	var names []string
	for _, k := range p.Kernels {
		names = append(names, k.Func.Name)
	}
	if got := strings.Join(names, ","); got != "kernel,k2" {
		t.Fatalf("kernels = %s\n%s", got, eval.Dump(p))
	}
	tc := p.Kernels[0].Func.Body.Stmts[2].(*ir.TileCall)
	if r := tc.Args[0].(*ir.Region); r.Buf.Name != "B" || len(r.Buf.Shape) != 2 || r.Buf.Shape[1] != 8 {
		t.Fatalf("unexpected dst %s", eval.RegionString(r))
	}
}

// TestHoverSites checks the per-kernel buffer and layout sites.
func TestHoverSites(t *testing.T) {
	src := section(t, "seeds.txtar", "tma.py")
	p, _ := evalSource("tma.py", src, eval.Options{})
	k := p.Kernels[0]
	var got []string
	for _, b := range k.Buffers {
		s := b.Buf.Name + "@" + p.File.Text(b.NameSpan)
		if b.LayoutSpan.IsValid() {
			s += " layout=" + p.File.Text(b.LayoutSpan)
		}
		got = append(got, s)
	}
	want := []string{
		"A@A",
		`A_smem@A_smem layout=mma_shared_layout("float16", SwizzleMode.SWIZZLE_128B_ATOM, (8, 256))`,
		"mbar@mbar",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("buffers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(k.Layouts) != 1 || k.Layouts[0].Layout.String() != "Compose(3,3,3, S[(8,4,64):(64,512,1)])" {
		t.Fatalf("layout sites: %+v", k.Layouts)
	}
	if txt := p.File.Text(k.Layouts[0].Span); !strings.HasPrefix(txt, "mma_shared_layout(") {
		t.Fatalf("layout site span covers %q", txt)
	}
	// Every IR node of the kernel carries a valid span.
	var walk func(ss []ir.Stmt)
	walk = func(ss []ir.Stmt) {
		for _, s := range ss {
			if !s.Pos().IsValid() {
				t.Errorf("statement %T without span", s)
			}
			switch x := s.(type) {
			case *ir.If:
				walk(x.Then.Stmts)
			case *ir.TileCall:
				for i, a := range x.Args {
					if a != nil && !a.Pos().IsValid() {
						t.Errorf("tile call arg %d without span", i)
					}
				}
			}
		}
	}
	walk(k.Func.Body.Stmts)
}

// TestTruncations evaluates every prefix of every testdata program: no
// panics (panicInTests turns recovered panics into test failures), and
// no internal-error diagnostics.
func TestTruncations(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range files {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if !strings.HasSuffix(f.Name, ".py") {
				continue
			}
			step := 1
			if testing.Short() {
				step = 7
			}
			for n := 0; n <= len(f.Data); n += step {
				p, _ := evalSource(f.Name, f.Data[:n], eval.Options{MaxSteps: 20000})
				for _, d := range p.Diags {
					if d.Code == eval.CodeInternal {
						t.Fatalf("%s/%s[:%d]: %s", filepath.Base(path), f.Name, n, d.Message)
					}
				}
			}
		}
	}
}

// FuzzEvaluate checks that Evaluate never panics. The seeds are the
// testdata programs and the hostile programs of budget_test.go (under a
// small value budget, so they stop quickly).
func FuzzEvaluate(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range files {
		ar, _ := txtar.ParseFile(path)
		for _, x := range ar.Files {
			if strings.HasSuffix(x.Name, ".py") {
				f.Add(x.Data)
			}
		}
	}
	f.Add(callMatrix())
	for _, h := range hostilePrograms {
		f.Add([]byte(h.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, _ := evalSource("fuzz.py", src, eval.Options{MaxSteps: 20000, MaxBytes: 4 << 20})
		_ = eval.Dump(p)
	})
}

func BenchmarkEvaluate(b *testing.B) {
	var src []byte
	for _, name := range []string{"gmem_smem.py", "fallback.py", "reg.py", "smem_sqrt.py", "tma.py"} {
		src = append(src, section(b, "seeds.txtar", name)...)
		src = append(src, '\n')
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		evalSource("seeds.py", src, eval.Options{})
	}
}
