package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// figText prints f's facts, its instructions placed by m (Where: the
// figures of a kernel restored from the cache are the entry's).
func figText(m *memory.Kernel, f *memory.Figures) string {
	if f == nil {
		return "nil"
	}
	in := func(i *memory.Instruction) string {
		if i == nil {
			return "nil"
		}
		span, buf := m.Where(i)
		return fmt.Sprintf("%s %d %s %v %p %d/%d cta %d warp %d banks %v lanes %v", i.Kind, i.Width, i.Buf, span, buf, i.Wavefronts, i.Ideal,
			i.CTA, i.Warp, i.Banks, i.Lanes())
	}
	return fmt.Sprintf("%+v %+v %+v %+v %+v %+v %+v %+v %q %d %v | %s | %s | %s", f.SharedLoad, f.SharedStore, f.Ldmatrix, f.Stmatrix,
		f.GlobalLoad, f.GlobalStore, f.CpAsync, f.TMA, f.Unknown, f.CTAs, f.Scaled, in(f.Worst), in(f.WorstGlobal), in(f.FirstShared))
}

func kernelText(m *memory.Kernel, k *lower.Kernel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "total %s\nbody %s\n", figText(m, m.Total), figText(m, m.Body))
	for _, d := range k.Calls {
		fmt.Fprintf(&b, "call %v %s\n", d.Call.Span, figText(m, m.Calls[d.Call]))
	}
	return b.String()
}

// TestWarpDedup compares the analysis that counts translated warps once
// (warps.go) with executing every warp, fact by fact, on every kernel of
// lower's golden programs and of the 3,000-line benchmark corpus, and
// checks that the proof covers some of them.
func TestWarpDedup(t *testing.T) {
	srcs := dedupSources(t)
	kernels, covered, afterWarp0, roles := 0, 0, 0, 0
	for name, src := range srcs {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			kernels++
			if len(memory.WarpRuns(k.Lowered, k.Launch)) > 1 {
				roles++
			}
			if first, n := memory.WarpsCovered(k.Lowered, k.Launch); n > first+1 {
				covered++
				if first > 0 {
					afterWarp0++
				}
			}
			memory.SetWarpDedup(true)
			fast := kernelText(memory.Analyze(k.Lowered, k.Launch), k)
			memory.SetWarpDedup(false)
			slow := kernelText(memory.Analyze(k.Lowered, k.Launch), k)
			memory.SetWarpDedup(true)
			if fast != slow {
				t.Errorf("%s kernel %s: counting warp 0 for the covered warps differs:\n%s\nexecuting every warp:\n%s", name, k.Name, fast, slow)
			}
		}
	}
	t.Logf("%d kernels, %d with translated warps (%d from warp 1 on), %d with several roles", kernels, covered, afterWarp0, roles)
	if covered == 0 || afterWarp0 == 0 {
		t.Error("no kernel's warps proven translations of warp 0, or none of warp 1")
	}
}

// agreesUnproven analyses k as the machine does and executing every warp
// and CTA, reports any difference under name, and returns the former.
func agreesUnproven(t *testing.T, name string, k *lower.Kernel) *memory.Kernel {
	t.Helper()
	fast := memory.Analyze(k.Lowered, k.Launch)
	ow, oc := memory.SetWarpDedup(false), memory.SetCTADedup(false)
	slow := memory.Analyze(k.Lowered, k.Launch)
	memory.SetWarpDedup(ow)
	memory.SetCTADedup(oc)
	if a, b := kernelText(fast, k), kernelText(slow, k); a != b {
		t.Errorf("%s: counting translations differs:\n%s\nexecuting everything:\n%s", name, a, b)
	}
	return fast
}

// TestDedupShiftPerRoot: the accesses of one root must move by one shift
// for warps (and CTAs) to count as translations of the first, because a
// load the first one finds available may not be available to the others
// (A[tid] then A[tid % 32]: one load request in warp 0, two in the
// others); a barrier at the kernel's top level ends what shared accesses
// can meet, so a shared buffer written and read back at different shifts
// on its two sides is a translation still.
func TestDedupShiftPerRoot(t *testing.T) {
	const head = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (512,), "float32")
    B = T.match_buffer(B_ptr, (512,), "float32")
    T.device_entry()
`
	for _, c := range []struct {
		name, body   string
		warps, ctas  bool  // covered (one warp: not)
		loadRequests int64 // global
	}{
		{"global root, two shifts", `    T.cta_id([1])
    tid = T.thread_id([128])
    B[tid] = A[tid] + A[tid % 32]
`, false, true, 7},
		{"global root, two shifts across CTAs", `    bx = T.cta_id([4])
    tid = T.thread_id([32])
    B[bx * 32 + tid] = A[bx * 32 + tid] + A[tid]
`, false, false, 7}, // (one warp)
		{"global root, one shift", `    T.cta_id([1])
    tid = T.thread_id([128])
    B[tid] = A[tid] + A[tid + 128]
`, true, true, 8},
		{"shared root, two shifts apart", `    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_buffer((128,), "float32", scope="shared")
    S[tid] = A[tid]
    T.cuda.cta_sync()
    B[tid] = S[tid % 32]
`, true, true, 4},
		{"shared root, two shifts together", `    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_buffer((128,), "float32", scope="shared")
    S[tid] = A[tid]
    B[tid] = S[tid % 32]
`, false, true, 4},
		{"shared root, barrier in a branch", `    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_buffer((128,), "float32", scope="shared")
    S[tid] = A[tid]
    if tid < 1000:
        T.cuda.cta_sync()
    B[tid] = S[tid % 32]
`, false, true, 4},
	} {
		res := lower.Analyze(source.NewFile("k.py", []byte(head+c.body)), lower.Options{})
		if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Fatalf("%s: not lowered: %v", c.name, res.Diags)
		}
		k := res.Kernels[0]
		first, n := memory.WarpsCovered(k.Lowered, k.Launch)
		if got := n > first+1; got != c.warps {
			t.Errorf("%s: warps covered %v (%d..%d), want %v", c.name, got, first, n, c.warps)
		}
		if got := k.Launch.Grid[0] == 1 || memory.CTAsCovered(k.Lowered, k.Launch); got != c.ctas {
			t.Errorf("%s: CTAs covered %v, want %v", c.name, got, c.ctas)
		}
		fast := agreesUnproven(t, c.name, k)
		if got := fast.Total.GlobalLoad.Requests; got != c.loadRequests {
			t.Errorf("%s: %d global load requests, want %d", c.name, got, c.loadRequests)
		}
	}
}

// TestDedupSwizzle: an XOR swizzle moves by the move of its offset when
// that is a multiple of the swizzle's period (2^9 elements for a 3-bit
// swizzle of 8-element chunks), so warps 512 elements apart are
// translations; warps 256 apart are translations of the warp two before,
// 128 apart of the warp four before, and 64 apart not at all. Every case
// counts as executing every warp does.
func TestDedupSwizzle(t *testing.T) {
	const prog = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8192,), "float16")
    B = T.match_buffer(B_ptr, (8192,), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([256])
    S = T.alloc_buffer((16384,), "float16", scope="shared")
    for i in range(4):
        x = tid * STRIDE + i * 4096
        S[(((x >> 3) ^ (((x >> 3) & 56) >> 3)) << 3) | (x & 7)] = A[tid * 16 + i]
    T.cuda.cta_sync()
    B[tid] = S[tid]
`
	for _, c := range []struct {
		stride string
		period int64 // 0: not covered
	}{{"16", 1}, {"48", 1}, {"8", 2}, {"24", 2}, {"4", 4}, {"2", 0}} {
		res := lower.Analyze(source.NewFile("k.py", []byte(strings.Replace(prog, "STRIDE", c.stride, 1))), lower.Options{})
		if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Fatalf("stride %s: not lowered: %v", c.stride, res.Diags)
		}
		k := res.Kernels[0]
		first, n, period := memory.WarpPeriod(k.Lowered, k.Launch)
		if n <= first+period {
			period = 0
		}
		if period != c.period || (period > 0 && (first != 0 || n != 8)) {
			t.Errorf("stride %s: warps %d..%d covered with period %d, want 0..8 with period %d", c.stride, first, n, period, c.period)
		}
		fast := agreesUnproven(t, "stride "+c.stride, k)
		if fast.Total.SharedStore.Instructions != 32 {
			t.Errorf("stride %s: %d shared store instructions, want 32", c.stride, fast.Total.SharedStore.Instructions)
		}
	}
	// Odd warps store without conflicts, even ones with (4-way): warp 3 must
	// count as warp 1, not as warp 0.
	odd := strings.NewReplacer("STRIDE", "8", "S[(((x", "S[((((x", "| (x & 7)]", "| (x & 7)) + ((x >> 8) & 1) * (tid % 32) * 2]").Replace(prog)
	res := lower.Analyze(source.NewFile("k.py", []byte(odd)), lower.Options{})
	if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
		t.Fatalf("odd warps with conflicts: not lowered: %v", res.Diags)
	}
	k := res.Kernels[0]
	if first, n, period := memory.WarpPeriod(k.Lowered, k.Launch); first != 0 || n != 8 || period != 2 {
		t.Errorf("odd warps with conflicts: warps %d..%d covered with period %d, want 0..8 with period 2", first, n, period)
	}
	fast := agreesUnproven(t, "odd warps with conflicts", k)
	if fast.Total.SharedStore.Conflicts == 0 {
		t.Error("odd warps with conflicts: no conflicts counted")
	}
}

// TestDedupRoles: a warp-specialised kernel's branches on the warp give
// its warps roles; the warps of a role are translations of its first
// (each role follows only its own branch), and the counts equal
// executing every warp.
func TestDedupRoles(t *testing.T) {
	const prog = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    C = T.match_buffer(C_ptr, (2048,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([384])
    S = T.alloc_buffer((1024,), "float32", scope="shared")
    warp = tid // 32
    if warp == 0:
        S[tid] = A[tid * 4]
    elif tid // 32 == 1:
        S[tid * 2] = A[tid]
    elif warp < 8:
        B[tid] = A[tid] * T.float32(2)
    else:
        C[tid * 3] = A[tid]
    T.cuda.cta_sync()
    if warp >= 4:
        if warp < 8:
            B[tid + 2048] = S[tid - 128]
`
	k := oneKernel(t, "roles", prog)
	runs := memory.WarpRuns(k.Lowered, k.Launch)
	// warps 2..3, 4..7 (the only ones to read S back) and 8..11 (C moves
	// by 96 floats a warp: a translation too)
	want := [][3]int64{{2, 4, 1}, {4, 8, 1}, {8, 12, 1}}
	if fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("runs %v, want %v", runs, want)
	}
	agreesUnproven(t, "roles", k)

	// the warp's index broadcast from lane 0 (FlashMLA's head128 kernels:
	// interval arithmetic reads a full warp's shuffle as its value), and
	// a role over warps 2 and 3 whose rows are tid // 64 (1 in both) and
	// tid % 64 (moving with tid): the two warps are one run
	const shuffled = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    C = T.match_buffer(C_ptr, (2048,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([384])
    S = T.alloc_buffer((1024,), "float32", scope="shared")
    warp = T.cuda.__shfl_sync(T.uint32(0xFFFFFFFF), tid // 32, 0, 32)
    if warp == 0:
        S[tid] = A[tid * 4]
    elif warp == 1:
        S[tid * 2] = A[tid]
    elif warp < 4:
        S[tid // 64 * 512 + tid % 64 * 2] = A[tid]
    else:
        C[tid * 3] = A[tid]
    T.cuda.cta_sync()
    A[tid + 2048] = S[tid]
`
	k = oneKernel(t, "shuffled roles", shuffled)
	runs = memory.WarpRuns(k.Lowered, k.Launch)
	if want := [][3]int64{{2, 4, 1}, {4, 12, 1}}; fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("shuffled warp index: runs %v, want %v", runs, want)
	}
	agreesUnproven(t, "shuffled roles", k)
}

// TestDedupViewAtWarpOffset: a view whose runtime element offset moves
// with the warp (FlashMLA's k_gather_tile_2d at elem_offset = ... +
// wg1_warp_idx * 512) moves its accesses by that many elements of its
// type, and of the view of a view, by its offset less the outer one,
// which its offset includes (machine.baseTo): the warps are translations.
func TestDedupViewAtWarpOffset(t *testing.T) {
	prog := strings.Replace(warps128, "BODY", `    w = tid // 32
    V = T.decl_buffer((256,), "float32", data=S.data, elem_offset=w * 256 + 512, scope="shared")
    W = T.decl_buffer((64,), "float32", data=V.data, elem_offset=w * 256 + 576, scope="shared")
    V[tid % 32] = A[tid]
    W[tid % 32 * 2] = A[tid + 128]
    T.cuda.cta_sync()
    A[tid + 1024] = S[tid * 4 % 2048]
`, 1)
	k := oneKernel(t, "a view at a warp's offset", prog)
	if first, n := memory.WarpsCovered(k.Lowered, k.Launch); first != 0 || n != 4 {
		t.Errorf("warps covered %d..%d, want 0..4", first, n)
	}
	agreesUnproven(t, "a view at a warp's offset", k)
}

// TestProofPasses: the warp proof's shifts take one pass over code that
// defines each value before reading it, and another when a loop reads a
// value its body assigns later (the counts still agree with executing
// every warp).
func TestProofPasses(t *testing.T) {
	for _, c := range []struct {
		name, body string
		passes     int
	}{
		{"straight", `    x = tid * 2
    S[x] = A[tid]
    T.cuda.cta_sync()
    A[tid + 1024] = S[tid * 4 % 2048]
`, 1},
		{"carried", `    x: T.int32 = 0
    for i in T.serial(3):
        S[x + i] = A[tid]
        x = tid * 2
    T.cuda.cta_sync()
    A[tid + 1024] = S[tid * 4 % 2048]
`, 2},
	} {
		k := oneKernel(t, c.name, strings.Replace(warps128, "BODY", c.body, 1))
		if n, _ := memory.WarpProofPasses(k.Lowered, k.Launch); n != c.passes {
			t.Errorf("%s: %d passes, want %d", c.name, n, c.passes)
		}
		agreesUnproven(t, c.name, k)
	}
	// a loop's proof reads x, defined before the loop, as a runtime
	// value until the body's assignment moves it by one an iteration:
	// another pass reads that (and y, which then moves by two shifts)
	k := oneKernel(t, "carried over iterations", strings.Replace(warps128, "BODY", `    x: T.int32 = 0
    for i in T.serial(300):
        y = x * 32 + tid
        A[tid + 1024] = S[y]
        x = i + 1
`, 1))
	if n := memory.LoopProofPasses(k.Lowered, k.Launch, firstLoop(t, k.Lowered)); n < 2 {
		t.Errorf("carried over iterations: %d passes, want more than one", n)
	}
}

// TestWarpProofAfterWarp0: the proof across warps is made once warp 0 has
// executed, and only when executing the other warps would cost more than
// the proof: not when warp 0 leaves every figure unknown (the analysis
// stops), not when a warp executes fewer statements than the kernel
// holds; the counts agree with executing every warp.
func TestWarpProofAfterWarp0(t *testing.T) {
	const head = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, I_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    I = T.match_buffer(I_ptr, (128,), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_buffer((2048,), "float32", scope="shared")
`
	for _, c := range []struct {
		name, body string
		proofs     int
	}{
		{"an address never known first", `    A[I[tid]] = T.float32(1.0)
    for i in T.serial(300):
        S[tid] = A[tid + 128 * (i % 8)]
`, 0},
		{"cheap warps", cheapWarps(), 0},
		{"a loop in every warp", `    for i in T.serial(300):
        S[tid] = A[tid + 128 * (i % 8)]
    T.cuda.cta_sync()
    A[tid + 2048] = S[tid]
`, 1},
	} {
		k := oneKernel(t, c.name, head+c.body)
		if n, _ := memory.ProofsMade(k.Lowered, k.Launch); n != c.proofs {
			t.Errorf("%s: %d proofs, want %d", c.name, n, c.proofs)
		}
		agreesUnproven(t, c.name, k)
	}
	// the CTAs' proof likewise, once CTA 0 has executed: not for 4
	// CTAs of one warp that each execute a few statements of many
	for _, c := range []struct {
		name, ctas, body string
		proofs           int
	}{
		{"cheap CTAs", "4", "    if cta >= 1:\n" + strings.Repeat("        S[tid] = A[tid + cta * 32]\n", 30) + "    A[tid + 2048] = S[tid]\n", 0},
		{"a loop in every CTA", "4", "    for i in T.serial(300):\n        S[tid] = A[tid + 128 * (i % 8) + cta * 32]\n    T.cuda.cta_sync()\n    A[tid + 2048 + cta * 32] = S[tid]\n", 1},
	} {
		src := strings.Replace(strings.Replace(head, "T.cta_id([1])", "cta = T.cta_id(["+c.ctas+"])", 1), "T.thread_id([128])", "T.thread_id([32])", 1) + c.body
		k := oneKernel(t, c.name, src)
		if _, n := memory.ProofsMade(k.Lowered, k.Launch); n != c.proofs {
			t.Errorf("%s: %d proofs, want %d", c.name, n, c.proofs)
		}
		agreesUnproven(t, c.name, k)
	}
}

// cheapWarps is a body whose warp 0 executes a few statements of the
// many its other warps' branch holds.
func cheapWarps() string {
	var b strings.Builder
	b.WriteString("    if tid >= 32:\n")
	for i := range 40 {
		fmt.Fprintf(&b, "        S[tid + %d] = A[tid + %d]\n", i%15*128, i*64)
	}
	b.WriteString("    T.cuda.cta_sync()\n    A[tid + 2048] = S[tid]\n")
	return b.String()
}

// oneKernel lowers src and returns its one kernel (name: the case's, in
// a failure).
func oneKernel(t *testing.T, name, src string) *lower.Kernel {
	t.Helper()
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
	if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil || len(res.Diags) > 0 {
		t.Fatalf("%s: not lowered: %v", name, res.Diags)
	}
	return res.Kernels[0]
}

// firstLoop returns the first for loop of fn's body.
func firstLoop(t *testing.T, fn *ir.Func) *ir.For {
	t.Helper()
	var loop *ir.For
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		if f, ok := s.(*ir.For); ok && loop == nil {
			loop = f
		}
	})
	if loop == nil {
		t.Fatal("no loop")
	}
	return loop
}

// TestDedupOneLaneGlobal: a global access one lane makes, 16 bytes at an
// address aligned to 16 that moves by 16 bytes a warp (FlashMLA's
// index loads under elect_sync, at elem_offset = ... + warp * 4), counts
// one request of one sector in every warp: the role's warps 2 and 3 are
// a run, as warps 0 and 1 are another role's, and 2 warps execute. The
// run is checked on the warp it executes: 8-byte accesses, or every
// lane's, break it, and warp 3 executes too.
func TestDedupOneLaneGlobal(t *testing.T) {
	const prog = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle, I_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    I = T.match_buffer(I_ptr, (4096,), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_buffer((2048,), "float32", scope="shared")
    w = tid // 32
    r = T.alloc_buffer((4,), "int32", scope="local")
    for i in T.serial(20):
        if w >= 2:
            if T.ptx.elect_sync():
                V = T.decl_buffer((4,), "int32", data=I.data, elem_offset=w * 4 + i * 64, scope="global")
                Tx.thread.copy(r[0:N], V[0:N])
        S[tid] = A[tid + i * 128]
    T.cuda.cta_sync()
    A[tid + 2048] = S[tid]
    A[tid + 3072] = T.Cast("float32", r[0])
# tilels: reference=0.27
`
	for _, c := range []struct {
		name, from, to string
		warps          int
	}{
		{"one lane, 16 bytes", "N", "4", 2},
		{"one lane, 8 bytes", "N", "2", 3},
		{"every lane", "            if T.ptx.elect_sync():\n", "            if True:\n", 3},
		// every lane its own 16 bytes: 512 contiguous bytes, at 16 bytes
		// past a sector in warp 3 (17 sectors, against 16 in warp 2)
		{"every lane apart", "            if T.ptx.elect_sync():\n                V = T.decl_buffer((4,), \"int32\", data=I.data, elem_offset=w * 4 + i * 64, scope=\"global\")\n                Tx.thread.copy(r[0:N], V[0:N])",
			"            V = T.decl_buffer((128,), \"int32\", data=I.data, elem_offset=w * 4 + i * 256, scope=\"global\")\n            Tx.thread.copy(r[0:4], V[tid % 32 * 4:tid % 32 * 4 + 4])", 3},
	} {
		src := strings.ReplaceAll(strings.ReplaceAll(prog, c.from, c.to), "N]", "4]")
		k := oneKernel(t, c.name, src)
		agreesUnproven(t, c.name, k)
		if n := memory.WarpsExecuted(k.Lowered, k.Launch); n != c.warps {
			t.Errorf("%s: %d warps executed, want %d", c.name, n, c.warps)
		}
	}
}
