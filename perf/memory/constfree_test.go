package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/perf/memory"
)

// TestConstFreeKey checks the content cache's rule for the integer
// constants the machine never reads (constfree.go): every such constant
// of every test kernel is changed, twice, and where the key did not
// change the figures must not have.
// (The test programs hold few such kernels, FlashMLA's sparse prefill
// many: with $TILELS_BENCH_DIR the corpus's 264 are rewritten too.)
func TestConstFreeKey(t *testing.T) {
	for _, f := range []func(int64) int64{
		func(v int64) int64 { return v*3 + 7 },
		func(v int64) int64 { return -v - 1000 },
	} {
		rewrite := func(fn *ir.Func) int { return memory.RewriteFreeConsts(fn, f) }
		same, _ := rewriteKeeps(t, rewrite)
		if same < 10 {
			t.Fatalf("only %d rewritten kernels kept their key: nothing checked", same)
		}
		for _, src := range []string{constFreeSrc, constFreeCopySrc} {
			k := oneKernel(t, "", src)
			key := memory.Key(k.Lowered, k.Launch)
			want := figureText(memory.Analyze(k.Lowered, k.Launch), k)
			if n := rewrite(k.Lowered); n < 2 {
				t.Fatalf("%d constants rewritten", n)
			}
			if memory.Key(k.Lowered, k.Launch) != key {
				t.Error("rewritten free constants: another key")
			}
			if got := figureText(memory.Analyze(k.Lowered, k.Launch), k); got != want {
				t.Errorf("rewritten free constants: figures\n%s\nwant\n%s", got, want)
			}
		}
	}
}

// TestConstFreeRules states which constants the key leaves out and which
// it keeps, on a kernel like FlashMLA's sparse prefill.
func TestConstFreeRules(t *testing.T) {
	src := constFreeSrc
	keyOf := func(s string) string { return sourceKey(t, s) }
	base := keyOf(src)
	for _, c := range []struct {
		old, new string
		same     bool
		why      string
	}{
		{"lo: T.int32 = 8192", "lo: T.int32 = 4096", true, "a let's constant read only beside loaded values"},
		{"lo == 8192", "lo == 4096", true, "a comparison of a scalar the loop assigned loaded values"},
		{"idx[0] < 8192", "idx[0] < 4096", true, "a comparison of a register of loaded values"},
		{"if tid < 16", "if tid < 8", false, "a comparison of a thread index"},
	} {
		s := strings.Replace(src, c.old, c.new, 1)
		if s == src {
			t.Fatalf("%q is not in the kernel", c.old)
		}
		if got := keyOf(s) == base; got != c.same {
			t.Errorf("%s: the same key %v, want %v", c.why, got, c.same)
		}
	}
	// a register of values the machine knows: its comparisons are read,
	// and so is the let's constant
	known := strings.Replace(src, "idx[j] = I[tid * 4 + j]", "idx[j] = tid + j", 1)
	base = keyOf(known)
	for _, c := range [][2]string{{"idx[0] < 8192", "idx[0] < 4096"}, {"lo: T.int32 = 8192", "lo: T.int32 = 4096"}, {"lo == 8192", "lo == 4096"}} {
		if keyOf(strings.Replace(known, c[0], c[1], 1)) == base {
			t.Errorf("%s -> %s over known values: the same key", c[0], c[1])
		}
	}
	// a read of the let's scalar that sees the constant (before the
	// loop assigns it: the comparison after the loop still sees only
	// loaded values), and a loop that may not run (a runtime extent:
	// the comparison may see the let's constant)
	for _, c := range []struct {
		old, new string
		letSame  bool
		cmpSame  bool
	}{
		{"    for j in T.unroll(4):\n        lo = T.min", "    A[tid + lo % 64] = T.float32(2)\n    for j in T.unroll(4):\n        lo = T.min", false, true},
		{"    for j in T.unroll(4):\n        lo = T.min", "    for j in T.serial(n):\n        lo = T.min", false, false},
	} {
		v := strings.Replace(strings.Replace(src, c.old, c.new, 1), "I_ptr: T.handle)", "I_ptr: T.handle, n: T.int32)", 1)
		if !strings.Contains(v, c.new) {
			t.Fatalf("%q is not in the kernel", c.old)
		}
		base := keyOf(v)
		for _, d := range []struct {
			old, new string
			same     bool
		}{{"lo: T.int32 = 8192", "lo: T.int32 = 4096", c.letSame}, {"lo == 8192", "lo == 4096", c.cmpSame}} {
			if got := keyOf(strings.Replace(v, d.old, d.new, 1)) == base; got != d.same {
				t.Errorf("%q: %s -> %s: the same key %v, want %v", strings.SplitN(strings.TrimSpace(c.new), "\n", 2)[0], d.old, d.new, got, d.same)
			}
		}
	}
}

// TestConstFreeCached checks the cache's two keys: two kernels that
// differ only in constants the machine never reads share one entry (the
// second misses its full key, then finds the first's figures by the key
// without those constants), and the figures it restores, call by call,
// are those its own analysis gives.
func TestConstFreeCached(t *testing.T) {
	src := constFreeCopySrc
	defer memory.SetLazyKeys(memory.LazyKeys())
	for _, lazy := range []bool{false, true} {
		memory.SetLazyKeys(lazy)
		memory.ResetCache()
		a := oneKernel(t, "8192", src)
		b := oneKernel(t, "4096", strings.ReplaceAll(src, "8192", "4096"))
		if memory.Key(a.Lowered, a.Launch) != memory.Key(b.Lowered, b.Launch) {
			t.Fatal("kernels that differ in constants the machine never reads: two keys")
		}
		want := figureText(memory.Analyze(b.Lowered, b.Launch), b)
		memory.Cached(a.Lowered, a.Launch)
		mb := memory.Cached(b.Lowered, b.Launch)
		ma := memory.Cached(a.Lowered, a.Launch) // (restored: the entry)
		if got := figureText(mb, b); got != want {
			t.Errorf("lazy %v: restored figures\n%s\nwant\n%s", lazy, got, want)
		}
		if len(b.Calls) != 2 {
			t.Fatalf("%d calls", len(b.Calls))
		}
		for i, d := range b.Calls {
			f := mb.Calls[d.Call]
			if f == nil || f != ma.Calls[a.Calls[i].Call] {
				t.Errorf("lazy %v: call %d: figures %p, not the first kernel's entry", lazy, i, f)
			}
		}
	}
}

// constFreeSrc is a kernel like FlashMLA's sparse prefill: constants
// compared with loaded indices.
const constFreeSrc = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, I_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    I = T.match_buffer(I_ptr, (4096,), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    idx = T.alloc_buffer((4,), "int32", scope="local")
    for j in T.unroll(4):
        idx[j] = I[tid * 4 + j]
    lo: T.int32 = 8192
    for j in T.unroll(4):
        lo = T.min(lo, idx[j])
    none = lo == 8192
    mask: T.int32 = T.Select((idx[0] >= 0) & (idx[0] < 8192), 1, 0)
    if tid < 16:
        A[tid] = T.float32(0)
    A[tid + 32] = T.float32(1)
    if none:
        A[tid + 64] = T.float32(2)
    A[tid + mask * 32 + 96] = T.float32(3)
`

// constFreeCopySrc is constFreeSrc's rule in a kernel with tile calls.
const constFreeCopySrc = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle, I_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32", layout=TileLayout(S[32, 32]))
    I = T.match_buffer(I_ptr, (4096,), "int32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    tid = T.thread_id([32])
    A_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    idx = T.alloc_buffer((4,), "int32", scope="local")
    for j in T.unroll(4):
        idx[j] = I[tid * 4 + j]
    lo: T.int32 = 8192
    for j in T.unroll(4):
        lo = T.min(lo, idx[j])
    Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32])
    if lo < 8192:
        T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_smem[:, :])
`

// TestDataConstRules: integer constants in values that matter nowhere
// (dataregs.go: a value stored to memory, a data register's or a data
// scalar's, a TMA copy's coordinates) are walked into the key by type
// only; the same constants where a value matters (an index) are not.
func TestDataConstRules(t *testing.T) {
	const src = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    s = T.alloc_buffer((1,), "int32", scope="local")
    s[0] = tid % 32 // 8
    v: T.int32 = tid * 5 + 3
    w: T.int32 = T.Select(tid % 4 == 1, 2, 3)
    A[tid] = T.Cast("float32", s[0] * 7 + v + w)
    A[tid + 64] = T.float32(1)
`
	keyOf := func(s string) string { return sourceKey(t, s) }
	base := keyOf(src)
	for _, c := range [][2]string{{"// 8", "// 4"}, {"tid * 5 + 3", "tid * 6 + 1"}, {"s[0] * 7", "s[0] * 9"}, {"tid % 4 == 1", "tid % 4 == 2"}} {
		if keyOf(strings.Replace(src, c[0], c[1], 1)) != base {
			t.Errorf("%s -> %s in a value that matters nowhere: another key", c[0], c[1])
		}
	}
	// the register read in an index: its value matters
	control := strings.Replace(src, "A[tid + 64]", "A[tid + s[0] + v]", 1)
	base = keyOf(control)
	for _, c := range [][2]string{{"// 8", "// 4"}, {"tid * 5 + 3", "tid * 6 + 1"}} {
		if keyOf(strings.Replace(control, c[0], c[1], 1)) == base {
			t.Errorf("%s -> %s in a value an index reads: the same key", c[0], c[1])
		}
	}
	if keyOf(strings.Replace(control, "s[0] * 7", "s[0] * 9", 1)) != base {
		t.Error("a stored value's constant: another key")
	}
}
