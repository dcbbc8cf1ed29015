package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestLoopSkipBranches: the branches opaque.go lets the loop proof
// follow. Each kernel is analysed with and without skipping (skipCase):
// the figures must be the same, and the skip must execute fewer
// statements where it is allowed.
func TestLoopSkipBranches(t *testing.T) {
	// the branch of the last iteration (flash_attention4.py's early Q
	// release): every other iteration takes the else arm
	skipCase(t, "last iteration", kernel("1", `    last: T.let = 299
    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if k == last:
            S[1, tid] = A[2, tid]
`), true)
	// the first: the units compared start after it
	skipCase(t, "not the first iteration", kernel("1", `    for k in T.serial(300):
        if 0 != k:
            A[0, tid] = S[0, tid] + A[1, tid]
        else:
            S[1, tid] = A[2, tid]
`), true)
	// compared with a value the body carries (150 and 151 in turn): the
	// iteration it picks is not one value, and nothing is skipped
	skipCase(t, "a carried value", kernel("1", `    ph: T.int32 = 150
    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if k == ph:
            S[1, tid] = A[2, tid]
        ph = 301 - ph
`), false)
	// in the middle: the units skipped stop before it
	skipCaseSome(t, "a middle iteration", kernel("1", `    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if k == 150:
            S[1, tid] = A[2, tid]
`), true, true)
	// orderings: a prefix takes the other arm (the Then arm is the
	// common one), the units compared start after it
	skipCase(t, "after the first two", kernel("1", `    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if k >= 2:
            S[1, tid] = A[2, tid]
`), true)
	// a suffix: the units skipped stop before it
	skipCaseSome(t, "before the last ten", kernel("1", `    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if k < 290:
            S[1, tid] = A[2, tid]
`), true, true)
	// both sides move with the loop's variable, their difference by one
	// an iteration, and fewer iterations take the Then arm
	// (flash_attention_backward.py's causal tiles: i_m < m_tile_start +
	// 2): Else is the common arm
	skipCase(t, "a prefix on the Then arm", kernel("1", `    m0: T.let = 6
    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if m0 + k < m0 + 2:
            S[1, tid] = A[2, tid]
`), true)
	// one side of a logical and: in the common iterations the other
	// side decides (i_m_inner > 0 and lane_id == 0)
	skipCase(t, "and a lane", kernel("1", `    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if k > 0 and tid == 0:
            S[1, tid] = A[2, tid]
`), true)
	skipCase(t, "or a lane", kernel("1", `    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if k == 0 or tid == 0:
            S[1, tid] = A[2, tid]
`), true)
	// a bitwise and of the comparison and a boolean variable
	// (sparse_prefill_head128_phase1.py's `if (k > 0) & should_scale_o:`)
	skipCase(t, "bitwise and a boolean", kernel("1", `    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        flag: T.bool = tid == 0
        if (k > 0) & flag:
            S[1, tid] = A[2, tid]
`), true)
	// a side that moves with the loop: nothing is skipped
	skipCase(t, "and a moving side", kernel("1", `    for k in T.serial(300):
        A[0, tid] = S[0, tid] + A[1, tid]
        if k > 0 and k % 3 == 0:
            S[1, tid] = A[2, tid]
`), false)
}

// TestMaxWork: the bound on the statements an analysis executes stops a
// kernel whose loop cannot be skipped, and leaves one whose iterations
// are skipped (they are counted, not executed) with its figures.
func TestMaxWork(t *testing.T) {
	old := memory.SetMaxWork(2000)
	defer memory.SetMaxWork(old)
	// a counter that never comes back: every iteration executes
	_, ms := analyze(t, kernel("1", `    cnt = T.alloc_buffer((1,), "int32", scope="local")
    cnt[0] = 0
    for k in T.serial(3000):
        S[cnt[0] % 32, tid] = A[0, tid]
        cnt[0] = cnt[0] + 1
    T.cuda.cta_sync()
    A[1, tid] = S[0, tid]
`))
	if why := ms[0].Total.Unknown; !strings.Contains(why, "stopped after executing 2000 statements") {
		t.Errorf("a loop the machine executes whole: unknown reason %q, want the bound", why)
	}
	_, ms = analyze(t, kernel("1", `    for k in T.serial(1000):
        A[0, tid] = S[0, tid] + A[1, tid]
`))
	f := ms[0].Total
	if f.Unknown != "" || f.SharedLoad.Instructions != 1000 || f.GlobalStore.Requests != 1000 {
		t.Errorf("a loop whose iterations are skipped: %+v, want 1000 shared loads and global stores", *f)
	}
	if memory.Steps(ms[0]) <= 2000 || memory.Work(ms[0]) >= 2000 {
		t.Errorf("%d steps counted, %d executed: want more than the bound counted, fewer executed", memory.Steps(ms[0]), memory.Work(ms[0]))
	}
}

// TestLoopSkipFloatBranch: flash_attention4.py's softmax, a running
// maximum kept in a register, a branch on floating-point values the
// machine never knows (it skips both arms and taints what they write),
// and a scalar set at the top of every iteration and again under the
// branch (with a store that makes the branch count something). The
// body's figures are unknown (the skipped branch, named as such); the tile
// call's are known, the same with and without skipping iterations, and
// skipping executes under half the statements.
func TestLoopSkipFloatBranch(t *testing.T) {
	res, _ := analyze(t, kernel("1", `    run = T.alloc_buffer((1,), "float32", scope="local")
    m_old: T.float32
    m_new: T.float32
    run[0] = T.float32(0)
    for k in T.serial(300):
        m_old = run[0]
        m_new = T.Cast("float32", k)
        if m_old - m_new >= T.float32(-8.0):
            m_new = m_old
            S[2, tid] = A[3, tid]
        run[0] = m_new
        Tx.cta.copy(S[0:1, 0:32], A[1:2, 0:32])
`))
	k := res.Kernels[0]
	fast, slow := withAndWithout(k, memory.SetLoopDedup)
	if a, b := loopText(fast, k), loopText(slow, k); a != b {
		t.Errorf("skipping differs:\n%s\nexecuting every iteration:\n%s", a, b)
	}
	if len(k.Calls) == 0 {
		t.Fatal("no tile call")
	}
	if f := fast.Calls[k.Calls[0].Call]; f == nil || f.Unknown != "" || f.SharedStore.Instructions != 300 {
		t.Errorf("the copy: %+v, want known figures, 300 shared stores", f)
	}
	if fw, sw := memory.Work(fast), memory.Work(slow); fw*2 > sw {
		t.Errorf("%d statements executed, %d without skipping: expected under half", fw, sw)
	}
	// the body's figures say why, not what the condition reads
	if why := fast.Body.Unknown; why != "a branch on a floating-point value is decided at run time" {
		t.Errorf("the body's figures are unknown for %q, want the branch named", why)
	}
}

// TestSelectFloatReason: a Select on a floating-point comparison of a
// register that only data reads (so the machine keeps none of its
// values) between two memory accesses names the floating-point value,
// not the placeholder of a data register.
func TestSelectFloatReason(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    r = T.alloc_buffer((1,), "float32", scope="local")
    r[0] = A[0, tid]
    A[1, tid] = T.Select(r[0] >= T.float32(0.5), S[0, tid], S[1, tid])
`))
	want := "a select on a floating-point value chooses between memory accesses"
	if why := ms[0].Total.Unknown; why != want {
		t.Errorf("unknown %q, want %q", why, want)
	}
}

// TestSelectBitCastKnown: a Select on data read from memory between a
// constant and a bit cast of a register (sparse_prefill_head64_phase1.py's
// masked scores, T.if_then_else(invalid, -inf bits, float_as_uint(p[i])))
// chooses between no memory accesses: the figures stay known, and the
// loads and stores around it are counted. A Select between a bit cast of
// a shared load and a constant still chooses between memory accesses.
func TestSelectBitCastKnown(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    r = T.alloc_buffer((1,), "float32", scope="local")
    r[0] = A[0, tid]
    A[1, tid] = T.cuda.uint_as_float(T.Select(A[2, tid] > T.float32(0), T.uint32(0xFF800000), T.cuda.float_as_uint(r[0])))
`))
	f := ms[0].Total
	if f.Unknown != "" {
		t.Fatalf("the figures are unknown: %q", f.Unknown)
	}
	if f.GlobalLoad.Requests != 2 || f.GlobalStore.Requests != 1 {
		t.Errorf("global loads %+v, stores %+v: want 2 requests and 1", f.GlobalLoad, f.GlobalStore)
	}
	_, ms = analyze(t, kernel("1", `    A[1, tid] = T.cuda.uint_as_float(T.Select(A[2, tid] > T.float32(0), T.uint32(0xFF800000), T.cuda.float_as_uint(S[0, tid])))
`))
	if want := "chooses between memory accesses"; !strings.Contains(ms[0].Total.Unknown, want) {
		t.Errorf("a select over a shared load: unknown %q, want %q", ms[0].Total.Unknown, want)
	}
}
