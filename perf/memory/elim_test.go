package memory_test

import (
	"strings"
	"testing"
)

// The rules of docs/memory-agreement.md 5-11 on small kernels, one warp
// (or two) over the 32x32 float32 A and S of kernel(): each figure is
// what the rule predicts, and differs from counting every access.

// TestRepeatedSharedLoad: S[0, tid] read twice with nothing between is
// one LDS (rule 5), and a math call between is no barrier.
func TestRepeatedSharedLoad(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    S[0, tid] = A[0, tid]
    T.cuda.cta_sync()
    A[1, tid] = S[0, tid] + T.exp(S[0, tid])
`))
	if f := ms[0].Total; f.SharedLoad.Instructions != 1 {
		t.Errorf("shared loads %+v, want 1 instruction", f.SharedLoad)
	}
}

// TestDeadSharedStore: stores into S, which nothing reads, and the loads
// of A that feed them are not issued (rule 6), and the figures say why.
func TestDeadSharedStore(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    for i in range(4):
        S[tid, i] = A[tid, i]
`))
	f := ms[0].Total
	if f.SharedStore.Instructions != 0 || f.GlobalLoad.Requests != 0 || !strings.Contains(f.Elided, "S") {
		t.Errorf("got stores %+v, loads %+v, elided %q", f.SharedStore, f.GlobalLoad, f.Elided)
	}
}

// TestDeadRegisterChain: registers whose values only feed registers that
// never reach memory are dead with them, and so are the loads that fill
// them (v_ewise_reg_fragments' frags: nvcc issues only C's LDG.128 and
// STG.128). Shared memory is not: a shared tile some load reads keeps its
// stores even when that load feeds only dead registers.
func TestDeadRegisterChain(t *testing.T) {
	const chain = `    r = T.alloc_buffer((4,), "float32", scope="local")
    q = T.alloc_buffer((4,), "float32", scope="local")
    for i in range(4):
        r[i] = A[tid, i]
    for i in range(4):
        r[i] = r[i] + r[i]
    for i in range(4):
        q[i] = r[i] * 2.0
`
	_, ms := analyze(t, kernel("1", chain))
	f := ms[0].Total
	if f.GlobalLoad.Requests != 0 || !strings.Contains(f.Elided, "never reach memory") {
		t.Errorf("dead chain: global loads %+v, elided %q; want none", f.GlobalLoad, f.Elided)
	}
	// the same chain stored out at the end: every load stays
	_, ms = analyze(t, kernel("1", chain+"    A[tid, 0] = q[3]\n"))
	if f := ms[0].Total; f.GlobalLoad.Requests == 0 || f.GlobalStore.Requests != 1 {
		t.Errorf("live chain: global loads %+v, stores %+v; want the loads and 1 store", f.GlobalLoad, f.GlobalStore)
	}
	// a shared tile read into dead registers: the shared load goes, the
	// tile's stores and the loads that fill it stay
	_, ms = analyze(t, kernel("1", `    r = T.alloc_buffer((1,), "float32", scope="local")
    S[tid, 0] = A[tid, 0]
    T.cuda.cta_sync()
    r[0] = S[tid, 0]
`))
	f = ms[0].Total
	if f.SharedLoad.Instructions != 0 || f.SharedStore.Instructions != 1 || f.GlobalLoad.Requests != 1 {
		t.Errorf("shared into dead registers: loads %+v, stores %+v, global %+v; want 0, 1 and 1 request", f.SharedLoad, f.SharedStore, f.GlobalLoad)
	}
}

// TestPredicatedIf: `if tid == 0` around one cheap store is predicated:
// both warps issue its LDS and STS, warp 1 with no lane on (rule 7).
func TestPredicatedIf(t *testing.T) {
	src := strings.Replace(kernel("1", `    S[0, tid % 32] = A[0, tid % 32]
    T.cuda.cta_sync()
    if tid == 0:
        S[0, 0] = S[0, 0] + 1.0
    T.cuda.cta_sync()
    A[1, tid % 32] = S[0, tid % 32]
`), "T.thread_id([32])", "T.thread_id([64])", 1)
	_, ms := analyze(t, src)
	f := ms[0].Total
	// 2 warps: the first store 2, the if 2 (1 + 1 predicated off), the
	// read back 2
	if f.SharedStore.Instructions != 4 || f.SharedLoad.Instructions != 4 {
		t.Errorf("shared stores %+v, loads %+v; want 4 and 4", f.SharedStore, f.SharedLoad)
	}
	// the predicated-off warp adds no wavefront: 2+1 and 1+2
	if f.SharedStore.Wavefronts != 3 || f.SharedLoad.Wavefronts != 3 {
		t.Errorf("wavefronts: stores %d, loads %d; want 3 and 3", f.SharedStore.Wavefronts, f.SharedLoad.Wavefronts)
	}
}

// TestTailIf: the same if at the end of the kernel is an early exit of
// the lanes that do not take it (SASS @P0 EXIT): the warp with no lane on
// issues nothing (tma_runtime_rows' unit_rows, measured on an H200).
func TestTailIf(t *testing.T) {
	src := strings.Replace(kernel("1", `    S[0, tid % 32] = A[0, tid % 32]
    T.cuda.cta_sync()
    if tid == 0:
        S[0, 0] = S[0, 0] + 1.0
`), "T.thread_id([32])", "T.thread_id([64])", 1)
	_, ms := analyze(t, src)
	f := ms[0].Total
	// 2 warps: the first store 2, the if 1 (warp 1 has exited)
	if f.SharedStore.Instructions != 3 || f.SharedLoad.Instructions != 1 {
		t.Errorf("shared stores %+v, loads %+v; want 3 and 1", f.SharedStore, f.SharedLoad)
	}
}

// TestForwardedStore: a thread's own store read back with no barrier is
// not loaded again (rule 8); after a barrier it is.
func TestForwardedStore(t *testing.T) {
	body := `    for i in range(4):
        S[tid, i] = A[tid, i]
    SYNC
    for i in range(4):
        A[tid, i + 4] = S[tid, i]
`
	_, ms := analyze(t, kernel("1", strings.Replace(body, "SYNC", "T.evaluate(0)", 1)))
	if f := ms[0].Total; f.SharedLoad.Instructions != 0 || f.SharedStore.Instructions != 1 {
		t.Errorf("no barrier: loads %+v, stores %+v; want 0 and 1", f.SharedLoad, f.SharedStore)
	}
	_, ms = analyze(t, kernel("1", strings.Replace(body, "SYNC", "T.cuda.cta_sync()", 1)))
	if f := ms[0].Total; f.SharedLoad.Instructions != 1 {
		t.Errorf("barrier: loads %+v; want 1 (one LDS.128)", f.SharedLoad)
	}
}

// TestInterleavedChains: the even steps of an unrolled loop fill columns
// 0-1 of a row, the odd steps columns 16-17: two 8-byte stores, not four
// 4-byte ones (rule 9).
func TestInterleavedChains(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    for f in range(4):
        S[tid, f % 2 * 16 + f // 2] = A[tid, f]
    T.cuda.cta_sync()
    A[1, tid] = S[tid, 0] + S[tid, 16]
`))
	if f := ms[0].Total; f.SharedStore.Instructions != 2 {
		t.Errorf("shared stores %+v; want 2 (STS.64 x2)", f.SharedStore)
	}
}

// TestWidenedTail: one thread reads back three floats at a 16-byte
// aligned address with one 16-byte load; it stores them with an 8-byte
// and a 4-byte store (rule 10).
func TestWidenedTail(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    if tid == 0:
        for i in range(3):
            S[0, i] = A[0, i]
    T.cuda.cta_sync()
    if tid == 0:
        for i in range(3):
            A[1, i] = S[0, i]
`))
	f := ms[0].Total
	if f.SharedLoad.Instructions != 1 || f.SharedStore.Instructions != 2 {
		t.Errorf("loads %+v, stores %+v; want 1 and 2", f.SharedLoad, f.SharedStore)
	}
}

// TestOverwrittenRegisters: a register tile a "reg" copy filled, then
// overwritten element by element before anything reads it (Tx.zero after
// Tx.copy, r065), holds dead loads: nvcc deletes them (rule 13 (b)). One
// element read before the overwrite keeps its chunk's load; a tile of
// which one element is ever read keeps that element's chunk's load alone
// (buffer_views' row_block: LDG x4 of 16 copied, SASS).
func TestOverwrittenRegisters(t *testing.T) {
	for _, c := range []struct {
		name, body string
		loads      int64 // global load requests
	}{
		{"zeroed", `    x = T.alloc_local((16,), "float32")
    Tx.copy(x[:], A[tid, 0:16], dispatch="reg")
    Tx.zero(x[:])
    Tx.copy(A[tid, 0:16], x[:], dispatch="reg")
`, 0},
		{"read before the overwrite", `    x = T.alloc_local((16,), "float32")
    Tx.copy(x[:], A[tid, 0:16], dispatch="reg")
    A[0, tid] = x[5]
    Tx.zero(x[:])
    Tx.copy(A[tid, 0:16], x[:], dispatch="reg")
`, 1},
		{"one element read", `    x = T.alloc_local((16,), "float32")
    Tx.copy(x[:], A[tid, 0:16], dispatch="reg")
    A[0, tid] = x[5]
`, 1},
	} {
		// (the "reg" copy is 0.25's name)
		_, ms := analyze(t, strings.Replace(kernel("1", c.body), "reference=0.27", "reference=0.25", 1))
		f := ms[0].Total
		if f.GlobalLoad.Requests != c.loads {
			t.Errorf("%s: global loads %+v, want %d requests", c.name, f.GlobalLoad, c.loads)
		}
		if !strings.Contains(f.Elided, "overwritten") {
			t.Errorf("%s: elided %q, want the dead registers named", c.name, f.Elided)
		}
	}
}

// TestSortedLoads: independent loads of one unrolled nest merge in
// address order, not program order (merge.go's takeStepped): eight 32-bit
// loads of a 32-byte row at bytes 0, 8, 16, 24, 4, 12, 20, 28 are two
// LDS.128 (v_reg_permuted_regs' perm, measured on an H200), as the same
// loads in address order are; loads with a gap stay apart. (A run starts
// at its first load in program order: loads in descending address order
// are not joined, which no measured kernel has.)
func TestSortedLoads(t *testing.T) {
	for _, c := range []struct {
		name, index string
		want        int64
	}{
		{"permuted", "(f // 4) + (f % 4) * 2", 2},
		{"in order", "f", 2},
		{"a gap", "(f // 4) * 16 + (f % 4) * 2", 8}, // bytes 0, 8, 16, 24, 64, ...: no neighbours
	} {
		_, ms := analyze(t, kernel("1", `    r = T.alloc_buffer((8,), "float32", scope="local")
    S[tid, 0] = A[tid, 0]
    T.cuda.cta_sync()
    for f in T.unroll(8):
        r[f] = S[tid, `+c.index+`]
    for f in T.unroll(8):
        A[tid, f] = r[f]
`))
		f := ms[0].Total
		if f.SharedLoad.Instructions != c.want {
			t.Errorf("%s: %d shared load instructions, want %d", c.name, f.SharedLoad.Instructions, c.want)
		}
	}
}

// TestOverwrittenLoads: a kernel's own ld whose registers the code after
// it writes again before anything reads them is deleted by ptxas
// (overwritten.go; user_ldst's ld.shared.u32 and ld.global.acquire,
// measured on an H200); a read in between, or a branch, keeps it.
func TestOverwrittenLoads(t *testing.T) {
	for _, c := range []struct {
		name, between string
		want          int64 // shared load instructions of the one warp
	}{
		{"overwritten", "", 1},
		{"read in between", "    A[tid, 5] = T.Cast(\"float32\", v[0])\n", 2},
		{"a branch in between", "    if tid < 16:\n        A[tid, 5] = T.float32(1)\n", 2},
	} {
		src := kernel("1", `    v = T.alloc_local([2], "uint32")
    S[tid, 0] = A[tid, 0]
    T.cuda.cta_sync()
    T.ptx.ld.shared.u32(v[0], S.ptr_to([tid, 1]))
`+c.between+`    T.ptx.ld.shared.v2.u32(v[0], v[1], S.ptr_to([0, 2]))
    A[tid, 3] = T.Cast("float32", v[0] + v[1])
`)
		_, ms := analyze(t, src)
		if got := ms[0].Total.SharedLoad.Instructions; got != c.want {
			t.Errorf("%s: %d shared load instructions, want %d", c.name, got, c.want)
		}
	}
}
