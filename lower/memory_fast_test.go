package lower

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/perf/memory"
)

// figuresText prints every exported fact of f (the worst and first
// instructions with their banks and lanes included, each placed by m:
// memory.Kernel.Where).
func figuresText(m *memory.Kernel, f *memory.Figures) string {
	if f == nil {
		return "nil"
	}
	instr := func(in *memory.Instruction) string {
		if in == nil {
			return "nil"
		}
		span, buf := m.Where(in)
		return fmt.Sprintf("%s %d %s %v %p %d/%d cta %d warp %d banks %v lanes %v", in.Kind, in.Width, in.Buf, span, buf, in.Wavefronts,
			in.Ideal, in.CTA, in.Warp, in.Banks, in.Lanes())
	}
	return fmt.Sprintf("%s %+v %+v %+v %+v %+v %+v %+v %+v %q ctas %d scaled %v\n worst %s\n global %s\n first %s",
		f.Source, f.SharedLoad, f.SharedStore, f.Ldmatrix, f.Stmatrix, f.GlobalLoad, f.GlobalStore, f.CpAsync, f.TMA, f.Unknown,
		f.CTAs, f.Scaled, instr(f.Worst), instr(f.WorstGlobal), instr(f.FirstShared))
}

func kernelFiguresText(k *memory.Kernel, r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "total %s\nbody %s\n", figuresText(k, k.Total), figuresText(k, k.Body))
	for _, kk := range r.Kernels {
		for _, d := range kk.Calls {
			if f, ok := k.Calls[d.Call]; ok {
				fmt.Fprintf(&b, "call %v %s\n", d.Call.Span, figuresText(k, f))
			}
		}
	}
	return b.String()
}

// TestMemoryPathsAgree runs the memory analysis of every kernel of every
// golden program three ways and compares every fact: memory.Analyze
// (pooled machines, reused across kernels in a different order each
// pass), memory.Cached from an empty cache, and memory.Cached again (the
// kernel restored from its key's entry).
func TestMemoryPathsAgree(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden programs: %v", err)
	}
	kernels := 0
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := ar.Get("kernel.py")
		if !ok {
			continue
		}
		res := Analyze(source.NewFile("kernel.py", src), Options{})
		var first []string
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			first = append(first, kernelFiguresText(memory.Analyze(k.Lowered, k.Launch), res))
		}
		memory.ResetCache()
		i := len(first)
		for j := len(res.Kernels) - 1; j >= 0; j-- {
			k := res.Kernels[j]
			if k.Lowered == nil {
				continue
			}
			i--
			kernels++
			again := kernelFiguresText(memory.Analyze(k.Lowered, k.Launch), res)
			cold := kernelFiguresText(memory.Cached(k.Lowered, k.Launch), res)
			warm := kernelFiguresText(memory.Cached(k.Lowered, k.Launch), res)
			for name, got := range map[string]string{"analyze again": again, "cached cold": cold, "cached warm": warm} {
				if got != first[i] {
					t.Errorf("%s kernel %s: %s differs:\n%s\nwant\n%s", filepath.Base(path), k.Name, name, got, first[i])
				}
			}
		}
	}
	if kernels == 0 {
		t.Fatal("no kernel analysed")
	}
}

// TestExplainMemoryRepeated checks that a kernel restored from the
// content cache (the second of two identical kernels) is explained at its
// own positions: memory.Kernel.Where places the shared figures'
// instructions in it.
func TestExplainMemoryRepeated(t *testing.T) {
	one := `@T.prim_func
def K(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "uint32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S_s = T.alloc_buffer((32 * 33,), "uint32", scope="shared")
    v = T.alloc_buffer((1,), "uint32", scope="local")
    T.ptx.ld.shared.u32(v[0], S_s.ptr_to([tid * 32]))
    A[tid] = v[0]
`
	src := "from tvm.script import tirx as T\n\n\n" + strings.Replace(one, "def K(", "def first(", 1) + "\n\n" +
		strings.Replace(one, "def K(", "def second(", 1)
	memory.ResetCache()
	res := Analyze(source.NewFile("k.py", []byte(src)), Options{})
	if len(res.Kernels) != 2 {
		t.Fatalf("%d kernels: %v", len(res.Kernels), res.Diags)
	}
	out := ExplainMemory(res, Options{})
	// the loads are on lines 12 and 24 (column 5)
	for _, want := range []string{"of S_s (4 bytes/thread) at 12:5,", "of S_s (4 bytes/thread) at 24:5,"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "worst shared:") < 2 {
		t.Errorf("the worst instruction of each kernel is not explained:\n%s", out)
	}
}

// TestPerfFixesRepeated checks that the second of two identical kernels
// (its figures restored from the content cache) gets the padding fix at
// its own allocation: the fix finds the worst instruction's buffer with
// memory.Kernel.Where.
func TestPerfFixesRepeated(t *testing.T) {
	one := goldenKernel(t, "mem_rows_cols")
	body := one[strings.Index(one, "@T.prim_func"):]
	body = strings.Replace(body, "# tilels: reference=0.27\n", "", 1)
	src := one + "\n\n" + strings.Replace(body, "def rows_cols(", "def rows_cols_again(", 1)
	memory.ResetCache()
	res := Analyze(source.NewFile("k.py", []byte(src)), Options{})
	if len(res.Kernels) != 2 {
		t.Fatalf("%d kernels: %v", len(res.Kernels), res.Diags)
	}
	out := ExplainMemory(res, Options{})
	var allocs []int
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "A_s = T.alloc_buffer") {
			allocs = append(allocs, i+1)
		}
	}
	if len(allocs) != 2 {
		t.Fatalf("A_s allocated on lines %v", allocs)
	}
	for _, line := range allocs {
		if want := fmt.Sprintf("insert at %d:61: , layout=T.TileLayout(T.S[(32, 32):(36, 1)])", line); !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestPerfFixesSameName checks that a fix is verified on its own kernel
// when another def of the file has the same name (rmsnorm.py's two
// factories of `rmsnorm`): mem_pool_interleave's conflicting kernel, then
// a def of the same name without shared memory. verifyFix used to take
// the last kernel of that name and case, and offered nothing.
func TestPerfFixesSameName(t *testing.T) {
	src := goldenKernel(t, "mem_pool_interleave")
	src = src[:strings.Index(src, "@T.prim_func\ndef pool_runs_interleaved")] + `@T.prim_func
def pool_runs(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float16")
    B = T.match_buffer(B_ptr, (4096,), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([256])
    Tx.cta.copy(B[:], A[:])
# tilels: reference=0.27
`
	memory.ResetCache()
	res := Analyze(source.NewFile("k.py", []byte(src)), Options{})
	if len(res.Kernels) != 2 || res.Kernels[0].Name != res.Kernels[1].Name {
		t.Fatalf("kernels %v: %v", res.Kernels, res.Diags)
	}
	warned, fixes := bankReport(res)
	want := ", layout=T.TileLayout(T.S[(4096 // 8, 2, 4):(4, 4096 // 2, 1)])"
	if warned != 2 || len(fixes) != 2 || fixes[0].NewText != want || fixes[1].NewText != want {
		t.Errorf("%d bank-conflict warnings, fixes %+v; want 2 and 2 fixes %q", warned, fixes, want)
	}
}

// TestExtentText checks the extent an interleaving fix writes: the
// allocation's one extent as the source spells it.
func TestExtentText(t *testing.T) {
	for _, c := range []struct{ decl, want string }{
		{`pool.alloc([hidden_size], "float32")`, "hidden_size"},
		{`T.alloc_buffer((256,), "float32", scope="shared")`, "256"},
		{`pool.alloc([n * 8], "float32")`, "(n * 8)"},
		{`pool.alloc([f(a, b)], "float32")`, "(f(a, b))"},
		{`pool.alloc([32, 32], "float32")`, ""},
		{`pool.alloc(shape, "float32")`, ""},
	} {
		got, ok := extentText(c.decl)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("extentText(%q) = %q, %v; want %q", c.decl, got, ok, c.want)
		}
	}
}

// TestPerfFixInterleaveAlloc checks the interleaving fix on a plain
// one-dimensional shared allocation (mem_pool_interleave's first kernel
// with x_smem allocated on its own): its extent is the literal.
func TestPerfFixInterleaveAlloc(t *testing.T) {
	src := goldenKernel(t, "mem_pool_interleave")
	src = src[:strings.Index(src, "@T.prim_func\ndef pool_runs_interleaved")] + "# tilels: reference=0.27\n"
	old := `    buf = T.alloc_buffer([16384], "uint8", scope="shared.dyn")
    pool = T.meta_var(T.SMEMPool(buf.data))
    x_smem = pool.alloc([4096], "float32")
`
	if !strings.Contains(src, old) {
		t.Fatalf("no pool in\n%s", src)
	}
	src = strings.Replace(src, old, "    x_smem = T.alloc_buffer((4096,), \"float32\", scope=\"shared\")\n", 1)
	memory.ResetCache()
	res := Analyze(source.NewFile("k.py", []byte(src)), Options{})
	ds, fixes := PerfReport(res, Options{})
	want := ", layout=T.TileLayout(T.S[(4096 // 8, 2, 4):(4, 4096 // 2, 1)])"
	if len(ds) != 2 || len(fixes) != 2 || fixes[0].NewText != want || !strings.Contains(ds[0].Message, "swizzle, pad or interleave the layout of x_smem") {
		t.Errorf("warnings %v, fixes %+v; want 2 warnings on x_smem and 2 fixes %q", ds, fixes, want)
	}
}

// goldenKernel is the kernel.py section of lower/testdata/NAME.txtar.
func goldenKernel(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/" + name + ".txtar")
	if err != nil {
		t.Fatal(err)
	}
	one, _ := ar.Get("kernel.py")
	return string(one)
}

// TestPerfFixFactoryCases checks that the interleaving fix of a factory's
// view, written with the factory's extent, is offered only when every
// case's extent takes it: with a case of 4100 floats (not a multiple of
// 8), the layout would cover 4096 of them (eval/shape-mismatch there), so
// no fix; with cases of 4096 and 2048, the fix.
func TestPerfFixFactoryCases(t *testing.T) {
	one := goldenKernel(t, "mem_pool_interleave")
	body := one[strings.Index(one, "@T.prim_func\ndef pool_runs("):strings.Index(one, "@T.prim_func\ndef pool_runs_interleaved")]
	body = strings.TrimRight(body, "\n")
	for _, old := range []string{"4096", "16384", "4088"} {
		if !strings.Contains(body, old) {
			t.Fatalf("no %s in\n%s", old, body)
		}
	}
	body = strings.NewReplacer("(4096,)", "(n,)", "[16384]", "[n * 4]", "[4096]", "[n]", "4088 - st : 4096 - st", "n - 8 - st : n - st", "T.serial(2)", "T.serial(n // 2048)").Replace(body)
	factory := "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n\n\ndef make(n):\n" +
		"    " + strings.ReplaceAll(body, "\n", "\n    ") + "\n\n    return pool_runs\n\n\n"
	for _, c := range []struct {
		cases string
		fix   bool
	}{{"K = [make(n) for n in (4096, 2048)]\n", true}, {"K = [make(n) for n in (4096, 4100)]\n", false}} {
		src := factory + c.cases + "# tilels: reference=0.27\n"
		memory.ResetCache()
		res := Analyze(source.NewFile("k.py", []byte(src)), Options{})
		if len(res.Kernels) != 2 {
			t.Fatalf("%d kernels: %v\n%s", len(res.Kernels), res.Diags, src)
		}
		warned, fixes := bankReport(res)
		want := ", layout=T.TileLayout(T.S[(n // 8, 2, 4):(4, n // 2, 1)])"
		cases := strings.TrimSpace(c.cases)
		switch {
		case warned == 0:
			t.Errorf("%s: no bank-conflict warning", cases)
		case c.fix && (len(fixes) == 0 || fixes[0].NewText != want):
			t.Errorf("%s: fixes %+v, want %q", cases, fixes, want)
		case !c.fix && len(fixes) != 0:
			t.Errorf("%s: fixes %+v, want none (a case's extent is not a multiple of 8)", cases, fixes)
		}
	}
}

// bankReport is how many perf/bank-conflicts warnings PerfReport gives r,
// and the fixes.
func bankReport(r *Result) (int, []Fix) {
	ds, fixes := PerfReport(r, Options{})
	n := 0
	for _, d := range ds {
		if d.Code == CodeBankConflicts {
			n++
		}
	}
	return n, fixes
}
