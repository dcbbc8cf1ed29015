package memory_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// dataKeyFiles are the programs TestDataArithmeticKey rewrites: the
// golden programs, the examples and the memory programs, and the .py
// files under $TILELS_BENCH_DIR when it is set (the 128-file corpus).
func dataKeyFiles(t *testing.T) []*source.File {
	var files []*source.File
	golden, _ := filepath.Glob("../../lower/testdata/*.txtar")
	for _, p := range golden {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if src, ok := ar.Get("kernel.py"); ok {
			files = append(files, source.NewFile(filepath.Base(p)+"/kernel.py", src))
		}
	}
	dirs := []string{"../../testdata/examples", "../../testdata/memory"}
	if d := os.Getenv("TILELS_BENCH_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".py") {
				if src, err := os.ReadFile(p); err == nil {
					files = append(files, source.NewFile(p, src))
				}
			}
			return nil
		})
	}
	if len(files) < 50 {
		t.Fatalf("only %d programs", len(files))
	}
	return files
}

// figureText is what the figures of k say, without pointers: every
// count, the reasons, and the worst instructions' kinds, widths,
// wavefronts and places in the launch.
func figureText(m *memory.Kernel, k *lower.Kernel) string {
	var b strings.Builder
	add := func(f *memory.Figures) {
		if f == nil {
			b.WriteString("nil\n")
			return
		}
		fmt.Fprintf(&b, "%v %v %v %v %v %v %v %v %q %q %v\n", f.SharedLoad, f.SharedStore, f.Ldmatrix, f.Stmatrix, f.GlobalLoad, f.GlobalStore, f.CpAsync, f.TMA, f.Unknown, f.Elided, f.Scaled)
		for _, in := range []*memory.Instruction{f.Worst, f.WorstGlobal, f.FirstShared, f.Misaligned} {
			if in != nil {
				fmt.Fprintf(&b, "  %s %d %s %d/%d cta %d warp %d %v\n", in.Kind, in.Width, in.Buf, in.Wavefronts, in.Ideal, in.CTA, in.Warp, in.Banks)
			}
		}
	}
	add(m.Total)
	add(m.Body)
	for _, d := range k.Calls {
		add(m.Calls[d.Call])
	}
	return b.String()
}

// rewriteData changes, in the values that stores write, what the
// content cache's key leaves out (cache.go's dataExpr): each
// floating-point addition, subtraction, multiplication, minimum and
// maximum becomes the next of them, each floating-point constant another
// value. It reports how many it changed.
func rewriteData(fn *ir.Func) int {
	next := map[ir.BinOp]ir.BinOp{ir.Add: ir.Sub, ir.Sub: ir.Mul, ir.Mul: ir.Max, ir.Max: ir.Min, ir.Min: ir.Add}
	n := 0
	var value func(e ir.Expr)
	value = func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Binary:
			if o, ok := next[e.Op]; ok && memory.ValueType(e).IsFloat() {
				e.Op = o
				n++
			}
			value(e.A)
			value(e.B)
		case *ir.FloatImm:
			e.Value = e.Value*3 + 1
			n++
		case *ir.Cast:
			value(e.X)
		case *ir.Neg:
			value(e.X)
		case *ir.Not:
			value(e.X)
		case *ir.Select:
			value(e.A)
			value(e.B)
		}
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		if st, ok := s.(*ir.Store); ok {
			value(st.Value)
		}
	})
	return n
}

// TestDataArithmeticKey checks the content cache's rule for data
// arithmetic: kernels whose keys are equal have equal figures. Every
// kernel of the test programs is analysed, its stored values' arithmetic
// rewritten (rewriteData), and keyed again: where the key did not change,
// the rewritten kernel's own analysis must give the same figures. A
// division, which the key keeps, must change it.
func TestDataArithmeticKey(t *testing.T) {
	if same, _ := rewriteKeeps(t, rewriteData); same < 20 {
		t.Fatalf("only %d rewritten kernels kept their key: nothing checked", same)
	}
}

// TestDataKeyKeeps checks what the key keeps of stored values: the
// division (a slow path of its own), a value written into a register
// that the machine may know, and the loads' indices.
func TestDataKeyKeeps(t *testing.T) {
	const src = `
from tvm.script import tirx as T

@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    acc = T.alloc_buffer((1,), "float32", scope="local")
    acc[0] = A[tx] + T.float32(2.0)
    B[tx] = acc[0] * A[tx]
`
	keyOf := func(s string) string { return sourceKey(t, s) }
	base := keyOf(src)
	for _, c := range []struct {
		name, from, to string
		same           bool
	}{
		{"subtraction", "acc[0] * A[tx]", "acc[0] - A[tx]", true},
		{"another constant", "(2.0)", "(7.5)", true},
		{"maximum", "acc[0] * A[tx]", "T.max(acc[0], A[tx])", true},
		{"division", "acc[0] * A[tx]", "acc[0] / A[tx]", false},
		{"another index", "acc[0] * A[tx]", "acc[0] * A[127 - tx]", false},
	} {
		got := keyOf(strings.Replace(src, c.from, c.to, 1))
		if (got == base) != c.same {
			t.Errorf("%s: key equal %v, want %v", c.name, got == base, c.same)
		}
	}
	// a register written with an integer the machine knows (an
	// integer stored as it is, which the frontend would convert): the
	// arithmetic over it is kept, walkKey walks the kernel again
	knownKey := func(s string) string {
		res := lower.Analyze(source.NewFile("k.py", []byte(s)), lower.Options{})
		k := res.Kernels[0]
		n := 0
		ir.WalkStmts(k.Lowered.Body, func(x ir.Stmt) {
			if st, ok := x.(*ir.Store); ok && st.Buf.Scope == "local" {
				if n == 0 {
					st.Value = &ir.IntImm{Value: 3, Type: ir.Int32}
				}
				n++
			}
		})
		if n != 2 {
			t.Fatalf("%d register stores, want 2", n)
		}
		return memory.Key(k.Lowered, k.Launch)
	}
	// a float variable bound to an integer the machine knows: the same
	// (fpVar)
	varKey := func(s string) string {
		res := lower.Analyze(source.NewFile("k.py", []byte(s)), lower.Options{})
		k := res.Kernels[0]
		n := 0
		ir.WalkStmts(k.Lowered.Body, func(x ir.Stmt) {
			if l, ok := x.(*ir.Let); ok && l.Var.Type.IsFloat() {
				l.Value = &ir.IntImm{Value: 3, Type: ir.Int32}
				n++
			}
		})
		if n != 1 {
			t.Fatalf("%d float lets, want 1", n)
		}
		return memory.Key(k.Lowered, k.Launch)
	}
	withVar := strings.Replace(src, "    acc[0] = A[tx] + T.float32(2.0)\n", "    x: T.float32 = A[tx]\n    acc[0] = x * x\n", 1)
	if varKey(withVar) == varKey(strings.Replace(withVar, "x * x", "x - x", 1)) {
		t.Errorf("a float variable holding a known value: its arithmetic left out of the key")
	}
	twice := strings.Replace(src, "    B[tx] =", "    acc[0] = acc[0] * acc[0]\n    B[tx] =", 1)
	if knownKey(twice) == knownKey(strings.Replace(twice, "acc[0] * acc[0]", "acc[0] - acc[0]", 1)) {
		t.Errorf("a register holding a known value: its arithmetic left out of the key")
	}
}

// TestHalfTypesKey checks the content cache's rule for 16-bit floats
// (cache.go's dtype): every test kernel's bfloat16 types are rewritten as
// float16 (memory.BFloatToHalf) and keyed again; where the key did not
// change, the rewritten kernel's own analysis must give the same figures.
func TestHalfTypesKey(t *testing.T) {
	if same, _ := rewriteKeeps(t, memory.BFloatToHalf); same < 5 {
		t.Fatalf("only %d rewritten kernels kept their key: nothing checked", same)
	}
}

// rewriteKeeps analyses every kernel of the test programs, rewrites it
// (rewrite reports how much it changed) and keys it again: where the key
// did not change, the rewritten kernel's own analysis must give the same
// figures. It returns how many rewritten kernels kept their key and how
// many did not.
func rewriteKeeps(t *testing.T, rewrite func(*ir.Func) int) (same, changed int) {
	t.Helper()
	for _, f := range dataKeyFiles(t) {
		res := lower.Analyze(f, lower.Options{Path: f.Name})
		for _, k := range res.Kernels {
			if k.Lowered == nil || k.Lowered.Body == nil {
				continue
			}
			key := memory.Key(k.Lowered, k.Launch)
			want := figureText(memory.Analyze(k.Lowered, k.Launch), k)
			if rewrite(k.Lowered) == 0 {
				continue
			}
			if memory.Key(k.Lowered, k.Launch) != key {
				changed++
				continue
			}
			same++
			if got := figureText(memory.Analyze(k.Lowered, k.Launch), k); got != want {
				t.Errorf("%s %s: the key did not change but the figures did:\n%s\nwant\n%s", f.Name, k.Name, got, want)
			}
		}
	}
	t.Logf("%d rewritten kernels keep their key, %d do not", same, changed)
	return same, changed
}

// TestUnreadConstKey checks the content cache's rule for the operands of
// intrinsics the machine does not read (cache.go's unreadOperands): every
// integer constant among them is changed, and where the key did not
// change the figures must not have. The byte count of a copy, which the
// machine reads, keeps its value in the key.
func TestUnreadConstKey(t *testing.T) {
	if same, _ := rewriteKeeps(t, memory.RewriteUnreadConsts); same < 20 {
		t.Fatalf("only %d rewritten kernels kept their key: nothing checked", same)
	}
	const src = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((1024,), "float32", scope="shared")
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    T.ptx.mbarrier.init(T.address_of(bar[0]), 32)
    T.cuda.copy_bytes(T.address_of(S[tid * 4]), T.address_of(A[tid * 4]), 16)
    T.cuda.cta_sync()
    A[tid + 1024] = S[tid]
`
	keyOf := func(s string) string { return sourceKey(t, s) }
	base := keyOf(src)
	if keyOf(strings.Replace(src, "(bar[0]), 32)", "(bar[0]), 64)", 1)) != base {
		t.Error("an mbarrier's arrival count: another key")
	}
	if keyOf(strings.Replace(src, "(A[tid * 4]), 16)", "(A[tid * 4]), 8)", 1)) == base {
		t.Error("a copy's byte count: the same key")
	}
}

// sourceKey lowers src and keys its one kernel.
func sourceKey(t *testing.T, src string) string {
	t.Helper()
	k := oneKernel(t, "", src)
	return memory.Key(k.Lowered, k.Launch)
}
