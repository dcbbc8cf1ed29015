package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestDataRegs compares the figures of every golden and testdata kernel
// (and the corpus under $TILELS_BENCH_DIR) analysed with data registers
// executed only for the accesses inside their expressions and with every
// register element kept: they must agree fact by fact, the step count
// included (and some kernels must have data registers). Inert loops,
// found among data registers, are executed in both (TestInertLoops
// compares them).
func TestDataRegs(t *testing.T) {
	defer memory.SetInertRule(memory.SetInertRule(false))
	kernels, withData := 0, 0
	eachKernel(t, func(name string, k *lower.Kernel) {
		kernels++
		fast, slow := withAndWithout(k, memory.SetDataRegs)
		if a, b := loopText(fast, k), loopText(slow, k); a != b {
			t.Errorf("%s kernel %s: data registers differ:\n%s\nkeeping every register:\n%s", name, k.Name, a, b)
		}
		if memory.DataRegisters(k.Lowered) != "[]" {
			withData++
		}
	})
	t.Logf("%d kernels, %d with data registers", kernels, withData)
	if withData == 0 {
		t.Error("no kernel has data registers")
	}
}

// TestDataRegsScan: which register allocations dataRegisters finds data.
// A register read in an index (idx), in a scalar that is one (row), or
// in a branch whose arm accesses memory (sel) or stores into a control
// register (flag, through row, found after the branch) is control; one
// read only in a branch whose arms store into data registers (pick)
// decides only what they hold, and is data.
func TestDataRegsScan(t *testing.T) {
	src := kernel("1", `    acc = T.alloc_buffer((4,), "float32", scope="local")
    idx = T.alloc_buffer((1,), "int32", scope="local")
    pick = T.alloc_buffer((1,), "int32", scope="local")
    sel = T.alloc_buffer((1,), "int32", scope="local")
    flag = T.alloc_buffer((1,), "int32", scope="local")
    row = T.alloc_buffer((1,), "int32", scope="local")
    idx[0] = tid
    pick[0] = 1
    sel[0] = tid
    flag[0] = tid % 2
    row[0] = 2
    for i in range(4):
        acc[i] = A[idx[0], i] * 2.0
    if pick[0] > 0:
        acc[0] = acc[1] + acc[2]
    if sel[0] > 3:
        S[0, tid] = acc[3]
    if flag[0] == 1:
        row[0] = 3
    r: T.int32 = row[0]
    S[r, tid] = acc[0]
`)
	res, _ := analyze(t, src)
	got := memory.DataRegisters(res.Kernels[0].Lowered)
	want := "[acc pick]"
	if got != want {
		t.Errorf("data registers %s, want %s", got, want)
	}
}

// TestDataRegsOpaque: what the machine never reads as a value does not
// make a register control (flash_attention4.py's softmax, whose 128
// scores per thread were control through each of these): a generic
// intrinsic's operand (-m[0] passed to ptx.mov.b64), the address of a
// register passed to an intrinsic the machine ignores (tcgen05.ld's
// destinations) or to a vector cast through pointers, a branch on a
// floating-point comparison and a Select on one. A register read in an
// index (idx) or an integer branch (pick) stays control, as does one
// whose address a copy to memory takes (out: regs.go reads it through
// its register slots).
func TestDataRegsOpaque(t *testing.T) {
	src := kernel("1", `    m = T.alloc_buffer((1,), "float32", scope="local")
    s = T.alloc_buffer((4,), "float32", scope="local")
    h = T.alloc_buffer((4,), "float16", scope="local")
    v = T.alloc_buffer((1,), "uint64", scope="local")
    idx = T.alloc_buffer((1,), "int32", scope="local")
    pick = T.alloc_buffer((1,), "int32", scope="local")
    out = T.alloc_buffer((4,), "float32", scope="local")
    r = T.alloc_buffer((1,), "float32", scope="local")
    idx[0] = tid
    pick[0] = 1
    m[0] = A[0, tid]
    s[0] = A[1, tid]
    T.ptx.mov.b64(v[0], -m[0], -m[0])
    T.ptx.tcgen05.wait.st()
    T.cuda.cast_vec2(T.address_of(h[0]), T.address_of(s[0]), "float32", "float16")
    if s[1] >= T.float32(0.5):
        r[0] = T.Select(s[2] == T.float32(0.0), s[3], m[0])
    A[4, tid] = r[0]
    if pick[0] > 0:
        out[1] = A[idx[0], 2]
    T.cuda.copy_bytes(T.address_of(A[3, tid]), T.address_of(out[0]), 4)
`)
	res, _ := analyze(t, src)
	got := memory.DataRegisters(res.Kernels[0].Lowered)
	want := "[h m r s v]"
	if got != want {
		t.Errorf("data registers %s, want %s", got, want)
	}
}

// TestDataRegsOpaqueLet: a condition that reads a let bound to a value
// the machine never knows (flash_attention4.py's epilogue: `zero: T.let
// = tvm.tirx.any(row_sum[0] == 0.0, row_sum[0] != row_sum[0])`, then a
// Select on it) is never known either, and the registers the let reads
// stay data; through an integer let (k) or a let bound again in a loop
// (w, made mutable by an assignment, choosing between memory accesses)
// they are control. A Select between values none of which reaches
// memory (flash_attention4.py's causal mask) decides only which value,
// data: what its condition reads (u through x) stays data.
func TestDataRegsOpaqueLet(t *testing.T) {
	src := kernel("1", `    s = T.alloc_buffer((1,), "float32", scope="local")
    c = T.alloc_buffer((1,), "float32", scope="local")
    p = T.alloc_buffer((1,), "int32", scope="local")
    q = T.alloc_buffer((1,), "float32", scope="local")
    r = T.alloc_buffer((1,), "float32", scope="local")
    s[0] = A[0, tid]
    c[0] = A[1, tid]
    p[0] = tid
    q[0] = A[2, tid]
    zero: T.let = s[0] == T.float32(0.0) or s[0] != s[0]
    far: T.let = zero or c[0] > T.float32(1.0)
    k: T.let = p[0] + 1
    r[0] = T.Select(far, T.float32(1.0), s[0])
    if k > 0:
        A[3, tid] = r[0]
    w: T.int32 = 0
    w = T.Cast("int32", q[0] > T.float32(0.0))
    A[4, tid] = T.Select(w > 0, A[5, tid], s[0])
    u = T.alloc_buffer((1,), "int32", scope="local")
    u[0] = tid * 3
    x: T.int32 = 0
    x = u[0] + 1
    A[6, tid] = T.Select(x > 40, r[0], s[0])
`)
	res, _ := analyze(t, src)
	got := memory.DataRegisters(res.Kernels[0].Lowered)
	want := "[c r s u]" // p through k, q through w: control
	if got != want {
		t.Errorf("data registers %s, want %s", got, want)
	}
}

// TestDataRegsWorklist: dataRegisters' worklist finds what whole passes
// to a fixed point found, on every kernel of the dedup tests' programs
// (and the 128-file corpus with TILELS_BENCH_DIR).
func TestDataRegsWorklist(t *testing.T) {
	n, some := 0, 0
	eachKernel(t, func(name string, k *lower.Kernel) {
		n++
		got, want := memory.DataRegisters(k.Lowered), memory.DataRegistersByPasses(k.Lowered)
		if got != want {
			t.Errorf("%s kernel %s: data registers %s, by passes %s", name, k.Name, got, want)
		}
		if got != "[]" {
			some++
		}
	})
	if some == 0 {
		t.Errorf("no kernel of %d has data registers", n)
	}
	t.Logf("%d kernels, %d with data registers", n, some)
}

// TestDataRegsTensorCopy: a TMA tensor copy's operands are read nowhere
// (the machine counts the tensor map's box), so a register that only
// gives one its coordinates is data (nvfp4_gemm.py's persistent
// scheduler: m_idx and n_idx), and so is one that only indexes its
// shared address (flash_attention4.py's KV pipeline stage, st); the same
// registers as another intrinsic's byte count and address are control.
func TestDataRegsTensorCopy(t *testing.T) {
	src := kernel("1", `    m = T.alloc_buffer((1,), "int32", scope="local")
    st = T.alloc_buffer((1,), "int32", scope="local")
    m[0] = tid * 4
    st[0] = 1
    T.cuda.copy_bytes(T.address_of(A[3, tid]), T.address_of(S[st[0], tid]), m[0] * 2)
`)
	res, _ := analyze(t, src)
	fn := res.Kernels[0].Lowered
	if got := memory.DataRegisters(fn); got != "[]" {
		t.Fatalf("data registers %s, want none: m is a byte count", got)
	}
	n := 0
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		if e, ok := s.(*ir.Evaluate); ok {
			if c, ok := e.X.(*ir.Call); ok && c.Op == ir.OpCopyBytes {
				c.Op = ir.OpCpAsyncBulkTensorS2G // (its operands as coordinates)
				n++
			}
		}
	})
	if n != 1 {
		t.Fatalf("%d copies", n)
	}
	if got := memory.DataRegisters(fn); got != "[m st]" {
		t.Errorf("data registers %s, want [m st]: a tensor copy's coordinate and shared index", got)
	}
}

// TestDataRegsVote: a warp vote on a floating-point comparison is never
// known (shuffle.go gives no value when an operand has none), so the
// registers it reads are data, and so is a mutable let bound to it that
// nothing assigns (sparse_prefill_head64_phase1.py's should_scale_o,
// which made its softmax scores control registers); a vote on an integer
// comparison reads control.
func TestDataRegsVote(t *testing.T) {
	for _, c := range []struct{ name, cond, want string }{
		{"float", "m[0] > T.float32(6.0)", "[k m]"}, // (k unread)
		{"integer", "k[0] > 6", "[m]"},
	} {
		src := kernel("1", `    m = T.alloc_buffer((1,), "float32", scope="local")
    k = T.alloc_buffer((1,), "int32", scope="local")
    m[0] = A[0, tid]
    k[0] = tid
    vote: T.bool = T.cuda.any_sync(T.uint32(0xFFFFFFFF), COND) != 0
    if vote:
        A[1, tid] = m[0]
`)
		src = strings.Replace(src, "COND", c.cond, 1)
		if c.name == "integer" {
			src = strings.Replace(src, "        A[1, tid] = m[0]", "        A[1, tid] = A[2, tid]", 1)
		}
		res, _ := analyze(t, src)
		if got := memory.DataRegisters(res.Kernels[0].Lowered); got != c.want {
			t.Errorf("%s: data registers %s, want %s", c.name, got, c.want)
		}
	}
}

// TestDataRegsPipeline: a software pipeline's stage and phase registers
// (fp8_blockwise_gemm.py's MMA warp) index only the operands of
// intrinsics the machine does not read (an mbarrier wait, tensor-core
// operations) and the branch that wraps them, whose arms only store into
// them: both are data (and the loop that advances them inert:
// TestInertLoopKinds). Indexing a shared load, the stage is control,
// and the phase, which only the wrapping branch stores, is data still.
func TestDataRegsPipeline(t *testing.T) {
	res, _ := analyze(t, kernel("1", pipelineBody))
	if got := memory.DataRegisters(res.Kernels[0].Lowered); got != "[phase stage]" {
		t.Errorf("data registers %s, want [phase stage]", got)
	}
	loaded := strings.Replace(pipelineBody, "    A[0, tid] = S[1, tid]\n", "    A[0, tid] = S[stage[0], tid]\n", 1)
	res2, _ := analyze(t, kernel("1", loaded))
	if got := memory.DataRegisters(res2.Kernels[0].Lowered); got != "[phase]" {
		t.Errorf("stage indexing a load: data registers %s, want [phase]", got)
	}
}

// pipelineBody is a software pipeline's loop (fp8_blockwise_gemm.py's
// MMA warp): an mbarrier wait on the stage each iteration, a fence every
// fourth, and the stage's wrap, a branch whose arms only store into the
// stage and phase registers; then a copy through shared memory.
const pipelineBody = `    bar = T.alloc_buffer((4,), "uint64", scope="shared")
    stage = T.alloc_buffer((1,), "int32", scope="local")
    phase = T.alloc_buffer((1,), "int32", scope="local")
    stage[0] = 0
    phase[0] = 0
    for k in range(64):
        T.ptx.mbarrier.try_wait(T.address_of(bar[stage[0]]), phase[0])
        if k % 4 == 0:
            T.ptx.fence.proxy.async_.shared__cta()
        stage[0] = stage[0] + 1
        if stage[0] == 4:
            stage[0] = 0
            phase[0] = phase[0] ^ 1
    A[0, tid] = S[1, tid]
`
