package lower

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/perf/memory"
)

// TestPerfDiagsUnless: the later publish's computation gives up while a
// newer version exists (stale reports true: no kernel's figures are
// computed, and the result says it is incomplete), and computes every
// kernel's otherwise.
func TestPerfDiagsUnless(t *testing.T) {
	memory.ResetCache()
	src := `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def a(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((32, 32), "float32", scope="shared")
    for i in range(32):
        S[tid, i] = A[tid, i]
    T.cuda.cta_sync()
    A[0, tid] = S[tid, 0]


@T.prim_func
def b(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((32, 33), "float32", scope="shared")
    for i in range(32):
        S[tid, i] = A[tid, i]
    T.cuda.cta_sync()
    A[0, tid] = S[tid, 0]
`
	snap, err := NewSession(Options{}).Analyze(context.Background(), source.NewFile("k.py", []byte(src)))
	if err != nil {
		t.Fatal(err)
	}
	if _, complete := snap.PerfDiagsUnless(func() bool { return true }); complete {
		t.Error("stale: complete")
	}
	for _, k := range snap.KernelList() {
		if perfKnown(k) {
			t.Errorf("stale: kernel %s computed", k.Name)
		}
	}
	if _, complete := snap.PerfDiagsUnless(func() bool { return false }); !complete {
		t.Error("current: not complete")
	}
	for _, k := range snap.KernelList() {
		if !perfKnown(k) {
			t.Errorf("current: kernel %s not computed", k.Name)
		} else if m := k.Memory(); m == nil || m.Total.Unknown != "" || m.Total.SharedStore.Instructions == 0 {
			t.Errorf("current: kernel %s has no figures", k.Name)
		}
	}
}

// TestPerfAheadBudget: the analyses of one publish share a budget of
// perTotal times PerfWork statements; past it, the kernels are left for
// the later publish (their cells say so) instead of each spending the
// bound of one.
func TestPerfAheadBudget(t *testing.T) {
	memory.ResetCache()
	// enough kernels that computing them all passes the bound below
	n := perTotal + runtime.GOMAXPROCS(0) + 4
	var src string
	for i := range n {
		// alike, but for the shared rows' length (a constant the
		// stored value alone would not be: the content cache's key
		// leaves a floating-point constant out): an entry each
		src += fmt.Sprintf(`
@T.prim_func
def k%d(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((32, %d), "float32", scope="shared")
    for i in range(48):
        S[tid, i] = A[tid, i] * T.float32(2)
    T.cuda.cta_sync()
    A[0, tid] = S[tid, 0]
`, i, 64+i)
	}
	src = "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n" + src
	f := source.NewFile("k.py", []byte(src))
	first := Analyze(f, Options{}).Kernels[0]
	w := memory.Analyze(first.Lowered, first.Launch).Work()
	if w <= 0 {
		t.Fatalf("work %d", w)
	}
	memory.ResetCache()
	res := Analyze(f, Options{PerfAhead: 32, PerfWork: w + w/4})
	known := 0
	for _, k := range res.Kernels {
		if perfKnown(k) {
			known++
		}
	}
	// 2.5 kernels' statements: two computed, the third given up; the
	// dispatch's goroutines may each have read the budget before another
	// spent it, one kernel each at most
	if bound := perTotal + runtime.GOMAXPROCS(0) - 1; known < 1 || known > bound {
		t.Errorf("%d of %d kernels computed ahead, want 1 to %d", known, len(res.Kernels), bound)
	}
	for _, k := range res.Kernels {
		if kernelPerf(k); !perfKnown(k) {
			t.Errorf("kernel %s: not computed whole afterwards", k.Name)
		}
	}
}
