package memory_test

import (
	"fmt"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestDedupViews: views of one shared allocation may move by different
// shifts from warp to warp when they keep apart in every warp (apart.go);
// when they meet in some warp, that warp's counts differ from the first
// one's and every warp executes. Each kernel's figures must equal those
// of executing every warp (agreesUnproven): a machine that skipped the
// check counts "meet in warp 0" as one load request for every warp
// (warp 0 finds Q's load redundant, the others do not) and "meet in warp
// 4" as none redundant anywhere.
func TestDedupViews(t *testing.T) {
	for _, c := range []struct {
		name, body string
		covered    bool // the run's other warps count as its first
	}{
		{"apart: a tile and a partial sum per warp", `    X = T.decl_buffer((1024,), "float32", data=buf.data, scope="shared")
    Y = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=1024, scope="shared")
    X[tid * 4] = A[tid]
    Y[tid // 32] = A[tid + 256]
    B[tid] = X[tid * 4] + Y[tid // 32 + 8]
`, true},
		{"apart: in a loop the machine skips", `    X = T.decl_buffer((1024,), "float32", data=buf.data, scope="shared")
    Y = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=1024, scope="shared")
    for i in range(32):
        X[tid % 32 + i * 32] = A[tid + i * 64]
    Y[tid // 32] = A[tid]
    B[tid] = X[tid % 32] + Y[tid // 32]
`, true},
		{"meet in warp 0", `    P = T.decl_buffer((2048,), "float32", data=buf.data, scope="shared")
    Q = T.decl_buffer((2048,), "float32", data=buf.data, scope="shared")
    B[tid] = P[tid] + Q[tid % 32]
`, false},
		{"meet in warp 4", `    P = T.decl_buffer((2048,), "float32", data=buf.data, scope="shared")
    Q = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=128, scope="shared")
    B[tid] = P[tid] + Q[tid % 32]
`, false},
		{"a view at two shifts", `    P = T.decl_buffer((2048,), "float32", data=buf.data, scope="shared")
    Q = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=1536, scope="shared")
    B[tid] = P[tid] + P[tid % 32 + 1024] + Q[tid % 32]
`, false},
	} {
		runs := coveredCase(t, c.name, viewsHead+c.body, c.covered)
		if c.covered && fmt.Sprint(runs) != "[[0 8 1]]" {
			t.Errorf("%s: runs %v, want [[0 8 1]]", c.name, runs)
		}
	}
}

// viewsHead is the start of TestDedupViews' and TestDedupBarrierSegments'
// kernels: 8 warps and a shared buffer to carve views from.
const viewsHead = eightWarps + `    buf = T.alloc_buffer((2048,), "float32", scope="shared")
`

// eightWarps starts a kernel of one CTA of 8 warps over A and B.
const eightWarps = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([256])
`

// coveredCase lowers src (one kernel), checks that its figures are those
// of executing every warp, and that the warps after the first count as it
// when covered is set (and execute when not); it returns the warp runs.
func coveredCase(t *testing.T, name, src string, covered bool) [][3]int64 {
	t.Helper()
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
	if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil || len(res.Diags) > 0 {
		t.Fatalf("%s: not lowered: %v", name, res.Diags)
	}
	k := res.Kernels[0]
	runs := memory.WarpRuns(k.Lowered, k.Launch)
	fast := agreesUnproven(t, name, k)
	if got := memory.Work(fast) < workUnproven(k); got != covered {
		t.Errorf("%s: warps counted as the first: %v, want %v (runs %v)", name, got, covered, runs)
	}
	return runs
}

// workUnproven is what k's analysis executes when it executes every warp.
func workUnproven(k *lower.Kernel) int64 {
	ow := memory.SetWarpDedup(false)
	defer memory.SetWarpDedup(ow)
	return memory.Work(memory.Analyze(k.Lowered, k.Launch))
}

// TestDedupWarpgroupRoles: a warp-specialised kernel of two warpgroups
// whose first warpgroup's branches test what the second's warps cannot
// tell (a leader lane elected in warp 1, a branch on warp 2 and an
// elected lane): the second warpgroup's warps reach none of those
// branches, take the same ones and are translations of its first warp
// (warps 0 and 3 take the same branches too, but are not adjacent);
// warp 0's role, a block only it runs (`if tid < 32`), needs no proof
// for the others; a proof that reads warpgroup axes covers the first
// warpgroup, and each later one is proven apart. Over a role's warps, Select(warp_idx >= 2, warp_idx *
// 4, 0) picks one arm, (warp_idx == 10) | (warp_idx == 11) has one value
// and warp_idx ^ 2 moves with warp_idx. A branch that runs nothing
// gives no warp a role.
func TestDedupWarpgroupRoles(t *testing.T) {
	const head = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    T.cta_id([1])
`
	for _, c := range []struct{ name, body, runs string }{
		{"warpgroup roles", `    wg_id = T.warpgroup_id([2])
    warp_id = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    S = T.alloc_buffer((512,), "float32", scope="shared")
    leader = (wg_id == 0) & (warp_id == 1) & (T.cuda.elect_sync() != T.uint32(0))
    if leader:
        S[0] = A[0]
    if wg_id == 0:
        if warp_id == 2 and T.cuda.elect_sync():
            B[1] = A[1]
    else:
        S[warp_id * 32 + lane + 128] = A[warp_id * 32 + lane]
        B[warp_id * 32 + lane + 128] = S[warp_id * 32 + lane + 128]
`, "[[4 8 1]]"},
		{"warp 0's block", `    tid = T.thread_id([256])
    S = T.alloc_buffer((512,), "float32", scope="shared")
    if tid < 32:
        S[tid % 32 + 256] = A[tid]
    S[tid] = A[tid + 512]
    T.cuda.cta_sync()
    B[tid] = S[tid]
`, "[[1 8 1]]"},
		{"the second warpgroup", `    wg = T.warpgroup_id([2])
    w = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    S = T.alloc_buffer((512,), "float32", scope="shared")
    S[w * 32 + lane] = A[wg * 128 + w * 32 + lane]
    T.cuda.warpgroup_sync(8 + wg)
    B[wg * 128 + w * 32 + lane] = S[(w * 32 + lane) ^ 1]
`, "[[0 4 1] [4 8 1]]"},
		// a branch that runs nothing (flash_attention4.py's profiling
		// marks under `if warp_id == 0:`) tells no role apart; a role
		// spanning the two warpgroups is cut between them
		{"a branch that runs nothing", `    wg_id = T.warpgroup_id([2])
    warp_id = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    S = T.alloc_buffer((512,), "float32", scope="shared")
    if (wg_id == 1) & (warp_id == 3):
        B[0] = A[0]
    else:
        if warp_id == 0:
            pass
        S[wg_id * 128 + warp_id * 32 + lane] = A[wg_id * 128 + warp_id * 32 + lane]
        B[wg_id * 128 + warp_id * 32 + lane] = S[wg_id * 128 + warp_id * 32 + lane]
`, "[[0 4 1] [4 7 1]]"},
		{"what a role's warps tell", `    tid = T.thread_id([384])
    S = T.alloc_buffer((2048,), "float32", scope="shared")
    warp_idx = tid // 32
    lane = tid % 32
    if warp_idx < 2:
        S[lane] = A[tid]
    elif warp_idx < 4:
        off = T.Select(warp_idx >= 2, warp_idx * 4, 0)
        S[(warp_idx ^ 2) * 128 + lane * 4 + off] = A[tid]
    elif (warp_idx == 10) | (warp_idx == 11):
        B[tid] = A[tid]
    else:
        B[tid] = A[tid + 1]
`, "[[0 2 1] [2 4 1] [4 10 1] [10 12 1]]"},
	} {
		res := lower.Analyze(source.NewFile("k.py", []byte(head+c.body)), lower.Options{})
		if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil || len(res.Diags) > 0 {
			t.Fatalf("%s: not lowered: %v", c.name, res.Diags)
		}
		k := res.Kernels[0]
		if runs := fmt.Sprint(memory.WarpRuns(k.Lowered, k.Launch)); runs != c.runs {
			t.Errorf("%s: runs %v, want %v", c.name, runs, c.runs)
		}
		agreesUnproven(t, c.name, k)
	}
}

// TestDedupLazyRoles: the runs of roles and of later warpgroups are
// proven only once their first warp has executed as many steps as the
// kernel has statements (a proof costs a few walks of the body). A role
// whose warps loop long enough is proven then, its views checked apart
// with the hulls collected while its first warp executed, and its other
// warps count as that one; a role whose warps do little executes them
// all. Both give the figures of executing every warp.
func TestDedupLazyRoles(t *testing.T) {
	const head = eightWarps + `    warp = tid // 32
    buf = T.alloc_buffer((4096,), "float32", scope="shared")
    X = T.decl_buffer((2048,), "float32", data=buf.data, scope="shared")
    Y = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=2048, scope="shared")
    if warp == 0:
        Y[tid] = A[tid]
    else:
`
	for _, c := range []struct {
		name, body string
		skipped    bool
	}{
		{"a long role", `        for i in T.serial(64):
            X[tid - 32] = A[tid + (i * i) % 64]
        Y[warp] = X[tid - 32]
`, true},
		{"a long role whose views meet", `        for i in T.serial(64):
            X[tid - 32] = A[tid + (i * i) % 64]
        Y[warp] = X[tid - 32 + 2040]
`, false},
		{"a short role", `        Y[warp] = A[tid]
`, false},
	} {
		if runs := fmt.Sprint(coveredCase(t, c.name, head+c.body, c.skipped)); runs != "[[1 8 1]]" {
			t.Errorf("%s: runs %v, want [[1 8 1]]", c.name, runs)
		}
	}
}

// TestDedupBarrierSegments: a barrier in the body of a serial loop (no
// break or continue, under no branch) ends the warp's shared segment as
// one at the kernel's top level does, so a view may move by one shift
// before it and by another after it (rmsnorm.py's partial sums, written
// per warp and read back at element 0 in every iteration of its
// persistent loop); warp w's hull of such a view spans w times each of
// its shifts. The accesses after the body's last barrier meet those
// before its first in the next iteration: there a view must keep its
// shift ("the next iteration meets the last segment": warp 0 copies
// Y[0:4] into registers at the end of one iteration and back to Y[0:4] at
// the start of the next, a round trip nvcc deletes; warp w copies them to
// Y[4w:4w+4], a store). Each kernel's figures must equal those of
// executing every warp.
func TestDedupBarrierSegments(t *testing.T) {
	const head = viewsHead + `    X = T.decl_buffer((1024,), "float32", data=buf.data, scope="shared")
    Y = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=1024, scope="shared")
    it: T.int32 = 0
`
	for _, c := range []struct {
		name, body string
		covered    bool // the warps after the first count as it
	}{
		{"segments in a while loop", `    while it < 4:
        X[tid * 4] = A[tid + it]
        Y[tid // 32] = A[tid]
        T.cuda.cta_sync()
        B[tid] = X[tid * 4] + Y[0]
        T.cuda.cta_sync()
        it = it + 1
`, true},
		{"named barriers of the whole CTA", `    while it < 4:
        X[tid * 4] = A[tid + it]
        Y[tid // 32] = A[tid]
        T.ptx.bar.sync(1, T.uint32(256))
        B[tid] = X[tid * 4] + Y[0]
        T.ptx.bar.sync(1, T.uint32(256))
        it = it + 1
`, true},
		{"the next iteration meets the last segment", `    r = T.alloc_buffer((4,), "float32", scope="local")
    for j in range(4):
        r[j] = T.float32(0.0)
    while it < 4:
        T.cuda.copy_bytes(T.address_of(Y[tid // 32 * 4]), T.address_of(r[0]), 16)
        T.cuda.cta_sync()
        X[tid * 4] = A[tid]
        T.cuda.cta_sync()
        T.cuda.copy_bytes(T.address_of(r[0]), T.address_of(Y[0]), 16)
        it = it + 1
`, false},
		{"barriers under a branch", `    while it < 4:
        X[tid * 4] = A[tid + it]
        Y[tid // 32] = A[tid]
        if it < 8:
            T.cuda.cta_sync()
        B[tid] = X[tid * 4] + Y[0]
        if it < 8:
            T.cuda.cta_sync()
        it = it + 1
`, false},
		{"a loop that breaks", `    while it < 4:
        X[tid * 4] = A[tid + it]
        Y[tid // 32] = A[tid]
        T.cuda.cta_sync()
        B[tid] = X[tid * 4] + Y[0]
        T.cuda.cta_sync()
        if it == 2:
            break
        it = it + 1
`, false},
		// P moves 512 bytes a warp before the barrier and none after it,
		// Q none: warp 6's hull of P, [0, 3076), reaches Q at 3072
		{"a view's span reaches another", `    P = T.decl_buffer((1024,), "float32", data=buf.data, scope="shared")
    Q = T.decl_buffer((1024,), "float32", data=buf.data, elem_offset=768, scope="shared")
    while it < 4:
        Q[tid % 32 * 4] = A[tid + it]
        P[tid // 32 * 128] = A[tid]
        T.cuda.cta_sync()
        B[tid] = Q[tid % 32 * 4] + P[0]
        T.cuda.cta_sync()
        it = it + 1
`, false},
	} {
		coveredCase(t, c.name, head+c.body, c.covered)
	}
}

// TestDedupViewsPeriod: warps two apart may be translations where
// adjacent ones are not (X's index flips its low bit in odd warps); the
// views of a split root then keep apart per residue: warps 2, 4, 6 count
// as warp 0 moved, 3, 5, 7 as warp 1 (apart.go). A branch only warp 0
// takes (tid == 0) makes warps 1 and 2 the ones executed. Where X meets
// Y in warp 6 (lane l loads X[192 + l] and Y[l], one address: Y's load
// is redundant there only), the even warps execute and the odd ones
// still count as warp 1; a machine that skipped the check counts warp 6
// as warp 0, and agreesUnproven finds one request more.
func TestDedupViewsPeriod(t *testing.T) {
	const flip = "tid ^ ((tid >> 5) & 1)"
	for _, c := range []struct {
		name, body string
		runs       string
	}{
		{"period 2, views apart", `    X = T.decl_buffer((1024,), "float32", data=buf.data, scope="shared")
    Y = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=1024, scope="shared")
    X[` + flip + `] = A[tid]
    Y[tid // 32] = A[tid + 256]
    T.cuda.cta_sync()
    B[tid] = X[` + flip + `] + Y[0]
`, "[[0 8 2]]"},
		{"period 2 after a branch of warp 0", `    X = T.decl_buffer((1024,), "float32", data=buf.data, scope="shared")
    Y = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=1024, scope="shared")
    X[` + flip + `] = A[tid]
    if tid == 0:
        Y[0] = A[4000]
    B[tid] = X[` + flip + `] + Y[0]
`, "[[1 8 2]]"},
		{"period 2, views meet in warp 6", `    X = T.decl_buffer((1024,), "float32", data=buf.data, scope="shared")
    Y = T.decl_buffer((32,), "float32", data=buf.data, elem_offset=192, scope="shared")
    B[tid] = X[` + flip + `] + Y[tid % 32]
`, "[[0 8 2]]"},
	} {
		runs := coveredCase(t, c.name, viewsHead+c.body, true)
		if fmt.Sprint(runs) != c.runs {
			t.Errorf("%s: runs %v, want %s", c.name, runs, c.runs)
		}
	}
}
