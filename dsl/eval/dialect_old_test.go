package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/ir"
)

// oldNewPair is one kernel written in the older dialect (mlc-ai-tirx
// 0.0.1b2) and in the current one; their IR must be the same.
const oldNewPair = `
from tvm.script import tirx as Tx
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tn
from tvm.tir.layout import TileLayout, S, TLane, TCol, tid_in_wg


@Tx.prim_func(tirx=True)
def k(A: Tx.Buffer((256, 64), "float16"), C: Tx.Buffer((256, 64), "float16")):
    with Tx.kernel():
        b = Tx.cta_id([2], parent="kernel")
        Tx.warpgroup_id([1], parent="cta")
        w = Tx.warp_id([4], parent="warpgroup")
        l = Tx.thread_id([32], parent="warp")
        pool = Tx.PoolAllocator()
        As = pool.alloc((128, 64), "float16")
        pool.commit()
        acc = Tx.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=0,
                             layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
        r = Tx.alloc_local((64,), "float32")
        r16 = Tx.alloc_local((64,), "float16")
        rv = r.view(128, 64, layout=TileLayout(S[(128, 64) : (1 @ tid_in_wg, 1)]))
        with Tx.cta():
            Tx.copy(As[:, :], A[b * 128 : b * 128 + 128, :])
        if w == 0:
            with Tx.thread(parent="warp")[Tx.ptx.elect_sync()]:
                Tx.gemm_async(acc[:, :], As[:, :], As[:, :], accum=False, dispatch="tcgen05", cta_group=1)
        with Tx.warpgroup():
            Tx.copy(rv[:, :], acc[:, :])
        with Tx.thread():
            Tx.cast(r16[:], r[:])
            Tx.copy(C[b * 128 + w * 32 + l, :], r16[:])


@T.prim_func
def k(A: T.Buffer((256, 64), "float16"), C: T.Buffer((256, 64), "float16")):
    b = T.cta_id([2])
    T.warpgroup_id([1])
    w = T.warp_id_in_wg([4])
    l = T.lane_id([32])
    pool = T.SMEMPool()
    As = pool.alloc((128, 64), "float16")
    pool.commit()
    acc = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=0,
                        layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    r = T.alloc_local((64,), "float32")
    r16 = T.alloc_local((64,), "float16")
    rv = r.view(128, 64, layout=TileLayout(S[(128, 64) : (1 @ tid_in_wg, 1)]))
    Tn.cta.copy(As[:, :], A[b * 128 : b * 128 + 128, :])
    if w == 0:
        if T.ptx.elect_sync():
            Tn.thread.gemm_async(acc[:, :], As[:, :], As[:, :], accum=False, dispatch="tcgen05", cta_group=1)
    Tn.warpgroup.copy_async(rv[:, :], acc[:, :])
    T.ptx.tcgen05.wait.ld()
    Tn.thread.cast(r16[:], r[:])
    Tn.thread.copy(C[b * 128 + w * 32 + l, :], r16[:])
`

// TestOldDialectSameIR: the older dialect's kernel evaluates to the IR of
// its current-dialect twin (scope ids, scope blocks, selected blocks,
// PoolAllocator, the synchronous TMEM read), without any diagnostic.
func TestOldDialectSameIR(t *testing.T) {
	p, syn := evalSource("pair.py", []byte(oldNewPair), eval.Options{})
	if len(syn) > 0 || len(p.Diags) > 0 {
		t.Fatalf("diagnostics: %v %v", syn, p.Diags)
	}
	if len(p.Kernels) != 2 {
		t.Fatalf("got %d kernels, want 2", len(p.Kernels))
	}
	dump := func(k *eval.Kernel) string {
		var b strings.Builder
		eval.DumpKernel(&b, k)
		return b.String()
	}
	old, cur := dump(p.Kernels[0]), dump(p.Kernels[1])
	if old != cur {
		t.Errorf("older dialect IR differs from the current one\n--- older\n%s--- current\n%s", old, cur)
	}
	var calls []string
	ir.WalkStmts(p.Kernels[0].Func.Body, func(s ir.Stmt) {
		if tc, ok := s.(*ir.TileCall); ok {
			calls = append(calls, tc.Scope+"."+tc.Op)
		}
	})
	want := "cta.copy thread.gemm_async warpgroup.copy_async thread.cast thread.copy"
	if got := strings.Join(calls, " "); got != want {
		t.Errorf("tile calls: got %q, want %q", got, want)
	}
}

// TestOldDialectNotModelled: a construct of the older dialect without a
// faithful meaning is one warning per kernel, at the first such
// construct, naming the dialect's revision; never an error.
func TestOldDialectNotModelled(t *testing.T) {
	src := `
from tvm.script import tirx as Tx


@Tx.prim_func(tirx=True)
def a(A: Tx.Buffer((128,), "float32")):
    with Tx.kernel():
        Tx.cta_id([1], parent="kernel")
        Tx.thread_id([128], parent="cta")
        Tx.fill(A[0:64], Tx.float32(1))
        with Tx.warpgroup()[0:1]:
            Tx.fill(A[64:128], Tx.float32(2))


@Tx.prim_func(tirx=True)
def b(A: Tx.Buffer((128,), "float32")):
    with Tx.kernel():
        Tx.cta_id([1], parent="kernel")
        Tx.thread_id([128], parent="kernel")
        with Tx.cta():
            Tx.fill(A[0:128], Tx.float32(1))
`
	p, _ := evalSource("nm.py", []byte(src), eval.Options{})
	var got []string
	for _, d := range p.Diags {
		if d.Severity == diag.Error {
			t.Errorf("error diagnostic: %s", d.Message)
		}
		if strings.HasPrefix(d.Message, "not modelled: ") {
			if !strings.HasSuffix(d.Message, "(older TIRx dialect of "+eval.OldDialectRev+")") {
				t.Errorf("message does not name the revision: %s", d.Message)
			}
			line, _ := p.File.Position(d.Span.Start)
			got = append(got, itoa(line))
		}
	}
	// One per kernel: a's first is the bare Tx.fill (line 10), not the
	// selected block after it; b's is the thread id under "kernel".
	if strings.Join(got, ",") != "10,19" {
		t.Errorf("not-modelled warnings at lines %v, want 10,19", got)
	}
}
