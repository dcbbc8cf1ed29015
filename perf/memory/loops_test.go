package memory_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestLoopDedup compares the analysis that skips translated loop
// iterations (loops.go) with executing every iteration, fact by fact (the
// misaligned access, the elided accesses and the step count included),
// on every kernel of lower's golden programs, the programs of testdata
// and the 3,000-line benchmark corpus, and checks that it skips
// iterations of some kernels.
func TestLoopDedup(t *testing.T) {
	kernels, faster := ruleAgrees(t, memory.SetLoopDedup, loopText, "skipping translated iterations", "executing every iteration")
	t.Logf("%d kernels, %d with skipped iterations", kernels, faster)
	if faster == 0 {
		t.Error("no kernel's loop iterations were skipped")
	}
}

// ruleAgrees compares, on every lowered kernel of dedupSources, the
// figures (text) of the analysis with a rule (set turns it on or off)
// and without it, and returns how many kernels it compared and how many
// executed fewer statements with the rule.
func ruleAgrees(t *testing.T, set func(bool) bool, text func(*memory.Kernel, *lower.Kernel) string, with, without string) (kernels, fewer int) {
	t.Helper()
	eachKernel(t, func(name string, k *lower.Kernel) {
		kernels++
		on, off := withAndWithout(k, set)
		if a, b := text(on, k), text(off, k); a != b {
			t.Errorf("%s kernel %s: %s differs:\n%s\n%s:\n%s", name, k.Name, with, a, without, b)
		}
		if memory.Work(on) < memory.Work(off) {
			fewer++
		}
	})
	return kernels, fewer
}

// eachKernel calls f on every lowered kernel of dedupSources.
func eachKernel(t *testing.T, f func(name string, k *lower.Kernel)) {
	t.Helper()
	for name, src := range dedupSources(t) {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered != nil {
				f(name, k)
			}
		}
	}
}

// withAndWithout analyses k with a rule on, then off (set turns it on or
// off and returns the previous setting).
func withAndWithout(k *lower.Kernel, set func(bool) bool) (on, off *memory.Kernel) {
	old := set(true)
	on = memory.Analyze(k.Lowered, k.Launch)
	set(false)
	// what the rule skips, the analysis without it executes: the same
	// bound on the statements counted
	w := memory.SetMaxWork(1 << 40)
	off = memory.Analyze(k.Lowered, k.Launch)
	memory.SetMaxWork(w)
	set(old)
	return on, off
}

func loopText(m *memory.Kernel, k *lower.Kernel) string {
	s := ctaText(m, k)
	el := func(f *memory.Figures) string {
		if f == nil {
			return "-"
		}
		return f.Elided
	}
	s += "\nelided " + el(m.Total)
	for _, d := range k.Calls {
		s += " | " + el(m.Calls[d.Call])
	}
	return s + "\nsteps " + fmt.Sprint(memory.Steps(m))
}

// skipCase analyses src with and without skipping iterations: the
// figures must be the same, and skipping must execute fewer statements
// when skip is set (the same number when not).
func skipCase(t *testing.T, name, src string, skip bool) {
	skipCaseSome(t, name, src, skip, false)
}

// skipCaseSome is skipCase; with some, skipping need only execute fewer
// statements.
func skipCaseSome(t *testing.T, name, src string, skip, some bool) {
	t.Helper()
	res, _ := analyze(t, src)
	k := res.Kernels[0]
	fast := memory.Analyze(k.Lowered, k.Launch)
	old := memory.SetLoopDedup(false)
	slow := memory.Analyze(k.Lowered, k.Launch)
	memory.SetLoopDedup(old)
	if a, b := loopText(fast, k), loopText(slow, k); a != b {
		t.Errorf("%s: skipping differs:\n%s\nexecuting every iteration:\n%s", name, a, b)
	}
	if fast.Total.Unknown != "" {
		t.Errorf("%s: unknown figures: %s", name, fast.Total.Unknown)
	}
	switch fw, sw := memory.Work(fast), memory.Work(slow); {
	case some && fw >= sw:
		t.Errorf("%s: %d statements executed, %d without skipping: expected fewer", name, fw, sw)
	case !some && skip && fw*2 > sw:
		t.Errorf("%s: %d statements executed, %d without skipping: expected under half", name, fw, sw)
	case !skip && fw != sw:
		t.Errorf("%s: %d statements executed, %d without skipping: expected no skip", name, fw, sw)
	}
}

// TestLoopSkipCases: one kernel per rule of loops.go.
func TestLoopSkipCases(t *testing.T) {
	// a TMA copy into a column-major tile, one element a box: 2,048
	// copies whose shared address moves by no multiple of 16 bytes; a
	// bulk tensor copy counts the same wherever it points (the machine
	// reads its tensor map alone), so the proof asks nothing of it
	skipCase(t, "tma boxes", `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16", layout=TileLayout(S[128, 64]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([16384 + 64], "uint8", scope="shared.dyn")
    T_smem = T.decl_buffer((32, 64), "float16", dyn.data, elem_offset=3072,
                           layout=TileLayout(S[(32, 64):(1, 32)]))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=16384 // 8)
    if tid == 0:
        Tx.copy_async(T_smem[:, :], A[0:32, :], dispatch="tma", mbar=bar.ptr_to([0]))
# tilels: reference=0.25
`, true)
	// a runtime loop (nvcc does not unroll 300 iterations): each
	// iteration moves 128 bytes in S and in A
	skipCase(t, "runtime", kernel("1", `    for i in T.serial(300):
        S[i % 32, tid] = A[tid, 0]
        A[i % 32, tid] = S[tid, 0]
`), false) // i % 32 moves no constant amount: refused
	skipCase(t, "runtime rows", kernel("1", `    for i in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
`), true)
	// an unroll nest of one thread (the fallback copy): rows of 128
	// bytes, merged 16 bytes at a time, the global loads' availability
	// rebuilt lazily (a later load of row 5 is redundant)
	skipCase(t, "unrolled nest", kernel("1", `    if tid == 0:
        for i in range(32):
            for j in range(32):
                S[i, j] = A[i, j]
        for j in range(32):
            S[0, j] = A[5, j]
`), true)
	// 4 bytes an iteration: global sectors repeat every 8 iterations,
	// shared banks every 4 (a period of 8)
	skipCase(t, "period", kernel("1", `    for i in T.serial(256):
        S[i // 32, i % 32] = A[i // 32, i % 32]
`), true)
	// a row of 20 elements an iteration block: 20 iterations move every
	// access by one 128-byte row, no power of two by a constant (an
	// elementwise op's broadcast operand, (s * 4 + v) // 20)
	skipCase(t, "odd period", kernel("1", `    for s in T.serial(160):
        S[s // 20, s % 20] = A[s // 20, s % 20] + A[s // 20, 0]
`), true)
	// a pipeline's stage counter: the state comes back every 4
	// iterations, the first sets the accumulate flag
	skipCase(t, "pipeline state", kernel("1", `    stage = T.alloc_buffer((1,), "int32", scope="local")
    acc: T.int32 = 0
    stage[0] = 0
    for k in T.serial(64):
        S[stage[0] * 8, tid] = A[acc, tid]
        acc = 1
        stage[0] = stage[0] + 1
        if stage[0] == 4:
            stage[0] = 0
`), true)
	// a counter that never comes back: every iteration runs
	skipCase(t, "counter", kernel("1", `    cnt = T.alloc_buffer((1,), "int32", scope="local")
    cnt[0] = 0
    for k in T.serial(30):
        S[cnt[0], tid] = A[0, tid]
        cnt[0] = cnt[0] + 1
    T.cuda.cta_sync()
    A[1, tid] = S[0, tid]
`), false)
	// registers written at elements that move: their values are data
	// k % 32 moves no constant amount: the first loop is refused; the
	// second reads the registers as data
	skipCaseSome(t, "moving registers", kernel("1", `    r = T.alloc_buffer((64,), "float32", scope="local")
    for k in T.serial(64):
        r[k] = A[k % 32, tid] * 2.0
    for k in T.serial(32):
        A[k, tid] = r[k]
`), true, true)
	skipCase(t, "moving registers 2", kernel("1", `    r = T.alloc_buffer((32,), "float32", scope="local")
    for k in T.serial(32):
        r[k] = A[k, tid] * 2.0
    for k in T.serial(32):
        S[k, tid] = r[k]
`), true)
	// a carried value that moves: refused
	skipCase(t, "moving value", kernel("1", `    row: T.int32 = 0
    for k in T.serial(30):
        S[row, tid] = A[0, tid]
        row = row + 1
`), false)
}

// dedupSources is the programs the dedup tests compare on: lower's
// golden programs, the programs of testdata, the 3,000-line benchmark
// corpus, and the .py files under $TILELS_BENCH_DIR when set (the
// 128-file corpus of docs/coverage.md).
func dedupSources(t *testing.T) map[string][]byte {
	t.Helper()
	srcs := map[string][]byte{}
	for _, glob := range []string{"../../lower/testdata/*.txtar", "../../testdata/*/*.py", "../../testdata/*/*/*.py", "../../testdata/*/*/*/*.py"} {
		paths, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if filepath.Ext(p) == ".py" {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				srcs[p] = b
				continue
			}
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := ar.Get("kernel.py"); ok {
				srcs[p] = s
			}
		}
	}
	if dir := os.Getenv("TILELS_BENCH_DIR"); dir != "" {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".py" {
				if b, err := os.ReadFile(p); err == nil {
					srcs[p] = b
				}
			}
			return nil
		})
	}
	big, err := benchcorpus.Build("../../testdata/examples", 3000)
	if err != nil {
		t.Fatal(err)
	}
	srcs["corpus"] = []byte(big)
	return srcs
}

// TestFixedCond: a bounds guard that every thread and iteration passes
// (4 x 32 lanes cover the 128 columns) keeps the warps' and iterations'
// code the same.
func TestFixedCond(t *testing.T) {
	res, _ := analyze(t, kernel("1", `    for k in T.serial(32):
        if (k % 4) * 32 + tid < 128:
            S[k, tid] = A[k, tid]
        if k * 32 + tid < 32 * 32:
            A[k, tid] = S[k, tid]
`))
	k := res.Kernels[0]
	fast := memory.Analyze(k.Lowered, k.Launch)
	old := memory.SetLoopDedup(false)
	slow := memory.Analyze(k.Lowered, k.Launch)
	memory.SetLoopDedup(old)
	if a, b := loopText(fast, k), loopText(slow, k); a != b {
		t.Errorf("skipping differs:\n%s\nexecuting every iteration:\n%s", a, b)
	}
	if fw, sw := memory.Work(fast), memory.Work(slow); fw*2 > sw {
		t.Errorf("%d statements executed, %d without skipping: the guards were not proven fixed", fw, sw)
	}
}

// TestAffineAddrs compares the compiled element offsets (affine.go) with
// elemAddr's own evaluation, fact by fact, on every kernel of the dedup
// tests' programs.
func TestAffineAddrs(t *testing.T) {
	for name, src := range dedupSources(t) {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			fast := loopText(memory.Analyze(k.Lowered, k.Launch), k)
			old := memory.SetAffineAddrs(false)
			slow := loopText(memory.Analyze(k.Lowered, k.Launch), k)
			memory.SetAffineAddrs(old)
			if fast != slow {
				t.Errorf("%s kernel %s: compiled offsets differ:\n%s\nelemAddr's:\n%s", name, k.Name, fast, slow)
			}
		}
	}
}

// TestLoopOneLane: one lane's accesses in a loop nvcc does not unroll,
// at addresses that move by no constant (a single thread's copy through
// a swizzle), count the same in every iteration when each root has one
// such access, aligned to its width (loops.go's oneLaneProof).
func TestLoopOneLane(t *testing.T) {
	// (what the loops store is read: nvcc deletes stores nothing reads)
	skipCase(t, "one lane, swizzled", kernel("1", `    if tid == 0:
        for i in T.serial(300):
            S[(i // 32) ^ (i % 4), (i * 7) % 32] = A[i % 32, (i // 32) ^ 1]
`+oneLaneReads), true)
	// 16 bytes at a multiple of 16 bytes, through pointers
	skipCase(t, "one lane, aligned vectors", kernel("1", `    if tid == 0:
        for i in T.serial(300):
            T.cuda.copy_bytes(T.address_of(S[(i * 7) % 32, (i % 8) * 4]), T.address_of(A[(i * 5) % 32, ((i // 8) % 8) * 4]), 16)
`+oneLaneReads), true)
	// 16 bytes at multiples of 8 only: some iterations' addresses are
	// misaligned, and which ones the alignment does not tell
	skipCase(t, "one lane, vectors aligned to less than their width", kernel("1", `    if tid == 0:
        for i in T.serial(300):
            T.cuda.copy_bytes(T.address_of(S[(i * 7) % 32, (i % 8) * 2]), T.address_of(A[0, 0]), 16)
`+oneLaneReads), false)
	// the two loads of A are one (the second redundant) where their
	// addresses meet: in iterations 5, 21, ..., not the ones compared
	skipCase(t, "two accesses of a root", kernel("1", `    if tid == 0:
        for i in T.serial(300):
            S[(i * 7) % 32, 0] = A[(i * 3) % 32, 0] + A[(i * 5 + 22) % 32, 0]
`+oneLaneReads), false)
	// in an inner loop, the accesses of one iteration meet
	skipCase(t, "an inner loop", kernel("1", `    if tid == 0:
        for i in T.serial(300):
            for j in T.serial(2):
                S[(i * 7 + j) % 32, 0] = A[j, 0]
`+oneLaneReads), false)
	// a warp's lanes: the banks and sectors depend on the addresses
	skipCase(t, "every lane", kernel("1", `    for i in T.serial(300):
        S[(i * 7) % 32, tid] = A[0, tid]
`+oneLaneReads), false)
	// nvcc unrolls 200 iterations: merging and forwarding join them
	skipCase(t, "an unroll loop", kernel("1", `    if tid == 0:
        for i in range(200):
            S[(i * 7) % 32, 0] = A[0, 0]
`+oneLaneReads), false)
}

const oneLaneReads = `    T.cuda.cta_sync()
    A[2, tid] = S[tid, tid]
    A[3, tid] = S[tid, 0]
`

// TestLoopCountedWhile: a while loop over an index that moves by a
// constant (whiles.go) runs as a serial for loop, whose translated
// iterations are skipped; the index after the loop is the one the while
// loop leaves. Without skipping, the machine runs the while loop as
// written: the figures must be the same.
func TestLoopCountedWhile(t *testing.T) {
	// (after the loop, the bank conflicts of the load of S[tid * i % 32, 0]
	// tell the index the loop left: 300 and 605 put 4 and 1 lanes in a
	// bank)
	skipCase(t, "a counted while loop", kernel("1", `    i: T.int32 = 3
    while i < 300:
        A[0, tid] = S[0, tid] + A[1, tid]
        i = i + 1
    A[2, tid] = S[tid * i % 32, 0]
`), true)
	skipCase(t, "v <= E, by 5", kernel("1", `    i: T.int32 = 0
    while i <= 600:
        S[0, tid] = A[0, tid] + A[1, tid]
        i = i + 5
    A[2, tid] = S[tid * i % 32, 1]
`), true)
	// lanes run different trip counts: the iterations are not compared,
	// the index each lane leaves is its own
	skipCase(t, "a trip count per lane", kernel("1", `    i: T.int32 = tid % 4
    while i < 200:
        S[0, tid] = A[0, tid] + A[1, tid]
        i = i + 3
    A[2, tid] = S[tid * i % 32, 1]
`), false)
	// (the index it leaves is 100)
	skipCase(t, "a loop that breaks", kernel("1", `    i: T.int32 = 0
    while i < 300:
        S[0, tid] = A[0, tid] + A[1, tid]
        if i == 100:
            break
        i = i + 1
    A[2, tid] = S[tid * i % 32, 1]
`), false)
	// a store of S and its load back by the same thread: nvcc keeps no
	// value in registers across a while loop's iterations, whatever
	// their count (the LDS stays)
	skipCase(t, "a store and its load back", kernel("1", `    i: T.int32 = 0
    while i < 20:
        S[0, tid] = A[0, tid]
        A[1, tid] = S[0, tid] + 1.0
        i = i + 1
`), true)
	// S[0, tid]'s load after the loop is the last iteration's, available
	// still: a while loop forgets nothing when it ends
	skipCase(t, "a load after the loop", kernel("1", `    i: T.int32 = 0
    while i < 20:
        A[0, tid] = S[0, tid] + 1.0
        i = i + 1
    A[1, tid] = S[0, tid]
`), true)
	skipCase(t, "a bound the body sets", kernel("1", `    i: T.int32 = 0
    e: T.int32 = 300
    while i < e:
        S[0, tid] = A[0, tid] + A[1, tid]
        e = e - 1
        i = i + 1
`), false)
	// the index in a register element (a persistent scheduler's
	// linear_idx[0]), its increment anywhere in the body
	skipCase(t, "a register index", kernel("1", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = 3
    while r[0] < 300:
        r[0] = r[0] + 1
        A[0, tid] = S[0, tid] + A[1, tid]
    A[2, tid] = S[tid * r[0] % 32, 0]
`), true)
	// the next tile's coordinate from the index, by a formula per range
	// (nvfp4_gemm.py's scheduler): a branch that moves with the
	// iteration, whose arms only compute a register read as data, and
	// a variable declared in the body (a new one in every iteration)
	skipCase(t, "a scheduler's branch", kernel("1", `    r = T.alloc_buffer((1,), "int32", scope="local")
    m = T.alloc_buffer((1,), "int32", scope="local")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    r[0] = 0
    m[0] = 0
    while r[0] < 400:
        acc[0] = T.Cast("float32", m[0])
        for j in range(2):
            d: T.int32 = 0
            d = m[0] * 2 + j
            acc[0] = acc[0] + T.Cast("float32", d)
        A[0, tid] = S[0, tid] + acc[0]
        r[0] = r[0] + 4
        if r[0] < 300:
            tile: T.int32 = r[0] // 7
            m[0] = tile
        else:
            m[0] = r[0] % 5
    A[2, tid] = S[tid * r[0] % 32, 0]
`), true)
	// the same coordinate in an address: it moves by no shift, no skip
	skipCase(t, "a scheduler's coordinate in an address", kernel("1", `    r = T.alloc_buffer((1,), "int32", scope="local")
    m = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = 0
    m[0] = 0
    while r[0] < 400:
        A[0, tid] = S[m[0] % 32, tid]
        r[0] = r[0] + 4
        if r[0] < 300:
            m[0] = r[0] // 7
        else:
            m[0] = r[0] % 5
`), false)
	// an mbarrier wait on a barrier that moves by no shift: the machine
	// reads no operand of it, so its pointer need not move by one
	skipCase(t, "an mbarrier that moves", kernel("1", `    bar = T.alloc_buffer((3,), "uint64", scope="shared")
    for k in range(32):
        T.ptx.mbarrier.try_wait(T.address_of(bar[k // 11]), k % 2)
        S[k, tid] = A[k, tid] * T.float32(2.0)
`), true)
	// a phase only an mbarrier wait reads is data: its assignments
	// carry nothing a skip gets wrong
	skipCase(t, "a data variable carried", kernel("1", `    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    ph: T.int32 = 0
    for k in range(32):
        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), ph)
        S[k, tid] = A[k, tid] * T.float32(2.0)
        ph = ph + k
`), true)
	// a second register the body moves by a constant (a tile count):
	// an induction, stated as a function of the iteration, whose value
	// after skipped iterations and after the loop is set
	skipCase(t, "an induction register", kernel("1", `    r = T.alloc_buffer((1,), "int32", scope="local")
    q = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = 0
    q[0] = 3
    while r[0] < 29:
        S[q[0], tid] = A[q[0], tid] * T.float32(2.0)
        r[0] = r[0] + 1
        q[0] = q[0] + 1
    A[0, tid] = S[q[0] % 32 * tid % 32, 0]
`), true)
	// the induction register read into a variable before its increment
	// (fp8_blockwise_gemm.py's store_iter = tile_count * 7 + ot): the
	// proof's first pass, before the increment, took the register for
	// one the body does not write, and the variable moved by no shift
	skipCase(t, "an induction register read before its increment", kernel("1", `    r = T.alloc_buffer((1,), "int32", scope="local")
    q = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = 0
    q[0] = 3
    while r[0] < 29:
        row = q[0] * 1
        S[row, tid] = A[row, tid] * T.float32(2.0)
        r[0] = r[0] + 1
        q[0] = q[0] + 1
    A[0, tid] = S[q[0] % 32 * tid % 32, 0]
`), true)
	// an index the body also writes elsewhere: a while loop as written
	skipCase(t, "a register index written twice", kernel("1", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = 0
    while r[0] < 300:
        S[0, tid] = A[0, tid] + A[1, tid]
        r[0] = r[0] + 1
        if r[0] == 100:
            r[0] = r[0] + 1
`), false)
}

// TestLoopTilesAndStages: a persistent loop over 8 tiles whose K loop's
// pipeline stages come back only after 3 tiles (200 K blocks in 6
// stages; fp8_blockwise_gemm.py's fifth case: 40 in 6) stops recording
// its tiles to compare them (whiles.go's regLoop), so that each tile's K
// loop skips its own iterations: fewer statements than recording 3
// tiles, the same figures.
func TestLoopTilesAndStages(t *testing.T) {
	src := kernel("1", `    r = T.alloc_buffer((1,), "int32", scope="local")
    st = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = 0
    st[0] = 0
    while r[0] < 8:
        for k in range(200):
            S[st[0], tid] = A[k % 2, tid]
            st[0] = st[0] + 1
            if st[0] == 6:
                st[0] = 0
        r[0] = r[0] + 1
`)
	skipCase(t, "tiles and stages", src, true)
	res, _ := analyze(t, src)
	k := res.Kernels[0]
	// without nested comparisons (TestLoopNest), the K loop of a
	// recorded tile executes whole
	nest := memory.SetLoopNest(false)
	on, off := withAndWithout(k, memory.SetOneBlock)
	memory.SetLoopNest(nest)
	if a, b := loopText(on, k), loopText(off, k); a != b {
		t.Errorf("comparing no tiles differs:\n%s\ncomparing tiles:\n%s", a, b)
	}
	if wo, wf := memory.Work(on), memory.Work(off); wo >= wf {
		t.Errorf("%d statements executed, %d comparing tiles: want fewer", wo, wf)
	}
	// with them, recording the tiles costs no more: the K loop skips
	// inside them
	nOn, nOff := withAndWithout(k, memory.SetOneBlock)
	if a, b := loopText(nOn, k), loopText(on, k); a != b {
		t.Errorf("nested comparisons differ:\n%s\nwithout:\n%s", a, b)
	}
	if w, wo := memory.Work(nOff), memory.Work(on); w > wo {
		t.Errorf("%d statements executed comparing tiles with nested comparisons, %d comparing none without: want no more", w, wo)
	}
}

// TestLoopMonotoneBranch: a branch on a value the body computes, which
// moves by a constant from iteration to iteration, takes one arm from
// some iteration on (opaque.go's monoCond); the machine skips units only
// after compared units in which every execution took that arm.
func TestLoopMonotoneBranch(t *testing.T) {
	// x = 3i passes 7 at i = 3: the comparison starts again after the
	// units that hold i < 3, and skips
	skipCaseSome(t, "an arm from the fourth iteration on", kernel("1", `    for i in T.serial(300):
        x = i * 3
        if x >= 7:
            A[0, tid] = S[0, tid] + A[1, tid]
        else:
            S[2, tid] = A[2, tid]
`), true, true)
	// falling: x = 900 - 3i drops below 20 only near the end; the units
	// compared take Then, the arm the first 294 iterations take but not
	// the eventual one, and none is skipped
	skipCase(t, "the eventual arm only near the end", kernel("1", `    for i in T.serial(300):
        x = 900 - i * 3
        if x >= 20:
            A[0, tid] = S[0, tid] + A[1, tid]
        else:
            S[2, tid] = A[2, tid]
`), false)
	// the same over an inner unroll loop: every instance of the branch
	// in the compared units takes the eventual arm, from the second
	// iteration of the outer loop on
	skipCaseSome(t, "instances in an inner loop", kernel("1", `    for i in T.serial(100, unroll=False):
        for j in range(4):
            x = i * 4 + j
            if x >= 2:
                A[j, tid] = S[j, tid] + A[4, tid]
`), true, true)
}

// TestLoopPeriodsUpTo: loopProofOf tries the periods an execution's trip
// count can use, and again with longer ones for an execution with more
// trips. The loads move by 8 bytes an iteration, a whole sector over 4:
// a loop of 6 iterations (units of at most 1) proves none, one of 16
// (units of at most 5) proves 4, and a later short one keeps it.
func TestLoopPeriodsUpTo(t *testing.T) {
	res, _ := analyze(t, kernel("1", `    for i in T.serial(n):
        A[0, tid] = A[tid // 2 + 16, i * 2]
`))
	k := res.Kernels[0]
	got := memory.LoopPeriods(k.Lowered, k.Launch, firstLoop(t, k.Lowered), []int64{1, 5, 1, 2})
	if want := []int64{0, 4, 4, 4}; !slices.Equal(got, want) {
		t.Errorf("periods %v, want %v", got, want)
	}
	// a proof that fails for a reason no period changes is not made
	// again (its answer is kept for every trip count)
	res, _ = analyze(t, kernel("1", `    for i in T.serial(n):
        A[0, tid] = A[(i * i) % 32, tid]
`))
	k = res.Kernels[0]
	if got := memory.LoopPeriods(k.Lowered, k.Launch, firstLoop(t, k.Lowered), []int64{1, 20}); !slices.Equal(got, []int64{0, 0}) {
		t.Errorf("a loop no period proves: %v", got)
	}
}

// TestLoopNest: a loop compares its iterations inside the compared units
// of a loop nvcc does not unroll (loops.go's nestable), with the figures
// the analysis gives when it does not, on one kernel per case and on
// every kernel of dedupSources.
func TestLoopNest(t *testing.T) {
	nestCase := func(name, src string, fewer bool) {
		t.Helper()
		res, _ := analyze(t, src)
		k := res.Kernels[0]
		on, off := withAndWithout(k, memory.SetLoopNest)
		if a, b := loopText(on, k), loopText(off, k); a != b {
			t.Errorf("%s: nested comparisons differ:\n%s\nwithout:\n%s", name, a, b)
		}
		if on.Total.Unknown != "" {
			t.Errorf("%s: unknown figures: %s", name, on.Total.Unknown)
		}
		switch won, woff := memory.Work(on), memory.Work(off); {
		case fewer && won*2 > woff:
			t.Errorf("%s: %d statements executed, %d without nested comparisons: expected under half", name, won, woff)
		case !fewer && won != woff:
			t.Errorf("%s: %d statements executed, %d without nested comparisons: expected as many", name, won, woff)
		}
	}
	// a runtime loop (300 iterations, kept by nvcc) around an unroll
	// loop of 32 rows: its compared units skip the rows' iterations
	nestCase("rows in a runtime loop", kernel("1", `    for i in T.serial(300):
        for j in range(32):
            S[j, tid] = A[j, tid] + A[0, tid]
`), true)
	// registers written with data (values not known): skipping their
	// iterations would leave register elements unknown that the runtime
	// loop's records do not hold, so they execute inside its units (the
	// index that reads them is in a branch no thread takes, so that the
	// figures stay known; a store nothing reads would make them dead)
	nestCase("data in registers", kernel("1", `    r = T.alloc_buffer((32,), "int32", scope="local")
    for i in T.serial(300):
        for j in range(32):
            r[j] = T.cast(A[j, tid], "int32") + i
    if tid > 1000:
        S[r[5] % 32, tid] = A[0, tid]
    T.cuda.cta_sync()
    A[1, tid] = S[0, tid]
`), false)
	kernels, fewer := ruleAgrees(t, memory.SetLoopNest, loopText, "nested comparisons", "without")
	t.Logf("%d kernels, %d executed fewer statements with nested comparisons", kernels, fewer)
}
