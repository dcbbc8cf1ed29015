package memory_test

import (
	"os"
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestInertLoops compares, on every kernel of the dedup tests' programs
// (and the 128-file corpus with TILELS_BENCH_DIR), the figures of the
// machine that passes over inert loops with those of the machine that
// executes them (inert.go).
func TestInertLoops(t *testing.T) {
	kernels, fewer := ruleAgrees(t, memory.SetInertRule, ctaText, "passing over inert loops", "executing them")
	t.Logf("%d kernels, %d with inert loops passed over", kernels, fewer)
	if fewer == 0 {
		t.Error("no kernel's inert loops were passed over")
	}
}

// TestInertLoopKinds: one kernel per kind of inert statement (a softmax
// row's register arithmetic, as flash_attention4.py lowers it), around
// the memory accesses it must not disturb: the figures are those of
// executing every statement, with far fewer statements executed. A loop
// whose statements read memory, or whose branch tests a runtime value,
// is executed. (Loop iterations are not skipped here: the loops'
// iterations are translations the loop rule would skip too.)
func TestInertLoopKinds(t *testing.T) {
	defer memory.SetLoopDedup(memory.SetLoopDedup(false))
	for _, c := range []struct {
		name, body string
		inert      bool
	}{
		{"packed moves", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        v = T.alloc_buffer((1,), "uint64", scope="local")
        T.ptx.mov.b64(v[0], s[f * 2], s[f * 2 + 1])
        T.ptx.ex2.approx.ftz.f32(s[f * 2], s[f * 2])
        T.ptx.mov.b64(s[f * 2], s[f * 2 + 1], v[0])
    S[0, tid] = s[0] + s[127]
`, true},
		{"branches on loop variables", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for g in T.unroll(4):
        for i in T.unroll(16):
            if i * 2 % 16 < 12 or g >= 3:
                T.ptx.ex2.approx.ftz.f32(s[g * 32 + 2 * i], s[g * 32 + 2 * i])
            else:
                s[g * 32 + 2 * i] = T.max(s[g * 32 + 2 * i], T.float32(-127.0))
                T.ptx.ex2.approx.ftz.f32(s[g * 32 + 2 * i], s[g * 32 + 2 * i])
    S[0, tid] = s[0] + s[127]
`, true},
		{"vector casts through register pointers", `    s = T.alloc_buffer((128,), "float32", scope="local")
    h = T.alloc_buffer((128,), "float16", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        T.cuda.cast_vec2(T.address_of(h[f * 2]), T.address_of(s[f * 2]), "float32", "float16")
    S[0, tid] = T.Cast("float32", h[0]) + s[127]
`, true},
		// its intrinsics end the available loads (A is written, so not
		// read-only): the second load of A[0, tid] is made again
		{"the barrier rule", `    s = T.alloc_buffer((128,), "float32", scope="local")
    s[0] = A[0, tid]
    for f in range(64):
        T.ptx.ex2.approx.ftz.f32(s[f], s[f])
    s[1] = A[0, tid]
    A[5, tid] = s[0] + s[1] + s[127]
`, true},
		// a let the loop's statements read and nothing after it
		// (flash_attention_backward.py's scaled_pair)
		{"a let inside", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        x: T.let = s[f * 2] * T.float32(2.0)
        s[f * 2] = x
        T.ptx.ex2.approx.ftz.f32(s[f * 2 + 1], s[f * 2 + 1])
    S[0, tid] = s[0] + s[127]
`, true},
		// a let read after the loop keeps it executed (its last value)
		{"a let read after", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        x: T.let = f * 2
        s[f * 2] = s[f * 2 + 1]
    S[x % 32, tid] = s[0] + s[127]
`, false},
		// conversions nested in a register's value (sparse_prefill's
		// masking of the scores: uint_as_float(Select(..., float_as_uint(p[i]))))
		{"nested conversions", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        s[f] = T.cuda.uint_as_float(T.Select(f % 3 == 0, T.uint32(4286578688), T.cuda.float_as_uint(s[f])))
    S[0, tid] = s[0] + s[127]
`, true},
		// a variable the loop assigns that is read after it as data
		// only (sparse_prefill's running maximum of the scores)
		{"a data variable read after", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    mx: T.float32 = T.float32(-1.0)
    for f in range(64):
        mx = T.max(mx, s[f])
    S[0, tid] = mx
`, true},
		// the first active lane, which the machine knows (flash_attention4.py's
		// MMA warp issues each tcgen05.mma under `if elect_sync():`)
		{"an elect_sync branch", `    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    for f in range(64):
        if T.ptx.elect_sync():
            T.ptx.mbarrier.arrive(T.address_of(bar[0]))
    S[0, tid] = A[0, tid]
`, true},
		// flash_attention4.py's row mask: the bounds and the branch read
		// constant lets, and a let's value has a call inside an operation
		{"constant lets and calls inside values", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    CHUNK: T.let = 32
    chunks: T.let = (128 + CHUNK - 1) // CHUNK
    for g in T.unroll(chunks):
        keep: T.let = T.max(n - g * CHUNK, 0)
        for i in T.unroll(CHUNK):
            if i < 128 - g * CHUNK:
                inb: T.let = T.bitwise_not(T.Cast("uint32", keep)) & (T.uint32(1) << i)
                s[g * CHUNK + i] = T.Select(T.Cast("bool", inb), s[g * CHUNK + i], T.float32(-1.0))
    S[0, tid] = s[0] + s[127]
    T.cuda.cta_sync()
    A[1, tid] = S[0, tid]
`, true},
		// an intrinsic inside a let's value ends the available loads too:
		// the second load of A[0, tid] is made again
		{"the barrier rule inside a value", `    s = T.alloc_buffer((128,), "float32", scope="local")
    s[0] = A[0, tid]
    for f in range(64):
        x: T.let = T.cuda.float_as_uint(s[f]) & T.uint32(255)
        s[f] = T.Cast("float32", x)
    s[1] = A[0, tid]
    A[5, tid] = s[0] + s[1] + s[127]
`, true},
		// the barrier rule of an intrinsic in a select's arm applies only
		// when the machine knows the condition: executed
		{"an intrinsic in a select's arm", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        x: T.let = T.Select(s[f] > T.float32(0.0), T.cuda.float_as_uint(s[f]), T.uint32(0)) + T.uint32(1)
        s[f] = T.cuda.uint_as_float(x)
    S[0, tid] = s[0] + s[127]
`, false},
		// a software pipeline (fp8_blockwise_gemm.py's MMA warp): an
		// mbarrier wait on the stage each iteration, a fence every
		// fourth (what only that arm does, the wait does anyway), and
		// the stage's wrap, a branch on data registers (dataregs.go)
		// whose arms only store into them
		{"a pipeline's stage, phase and branches", pipelineBody, true},
		// the fence every fourth iteration ends the available loads,
		// and nothing else in the loop does at every iteration: executed
		{"an intrinsic in one arm of a branch", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        if f % 4 == 0:
            T.ptx.fence.proxy.async_.shared__cta()
        s[f] = s[f] * T.float32(2.0)
    S[0, tid] = s[0] + s[127]
`, false},
		{"a loop that reads memory", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for f in range(64):
        v = T.alloc_buffer((1,), "uint64", scope="local")
        T.ptx.mov.b64(v[0], s[f * 2], s[f * 2 + 1])
        s[f] = S[f % 32, tid]
    for i in range(32):
        A[i, tid] = s[i * 4]
`, false},
		// a branch on a runtime value whose arms the machine passes
		// over as quiet code when it does not know the condition
		// (flash_attention4.py's MMA warp: `if i_kv == mma_trip_count -
		// 2:`): both arms end the available loads
		{"a branch on a runtime value", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        if f < n:
            T.ptx.ex2.approx.ftz.f32(s[f], s[f])
        else:
            T.ptx.ex2.approx.ftz.f32(s[f + 1], s[f + 1])
    S[0, tid] = s[0] + s[127]
`, true},
		// flash_attention4.py's MMA warp releases Q once, from the first
		// lane, on the last iteration but one (`if i_kv ==
		// mma_trip_count - 2:` around `if elect_sync():`), beside the
		// mbarrier wait of every iteration
		{"a branch on a runtime value around elect_sync", `    bar = T.alloc_buffer((2,), "uint64", scope="shared")
    for f in range(64):
        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
        if f == n - 2:
            if T.ptx.elect_sync():
                T.ptx.mbarrier.arrive(T.address_of(bar[1]))
    S[0, tid] = A[0, tid]
`, true},
		// an arm the machine cannot pass over quietly (a conversion
		// intrinsic in a stored value: the figures become unknown where
		// the condition is): executed
		{"a branch on a runtime value, an arm not quiet", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        T.ptx.ex2.approx.ftz.f32(s[f], s[f])
        if f < n:
            s[f] = T.cuda.uint_as_float(T.cuda.float_as_uint(s[f]) & T.uint32(255))
    S[0, tid] = s[0] + s[127]
`, false},
		// the arm only some iterations take does what nothing else in
		// the loop does at every iteration (ends the available loads):
		// executed
		{"a branch on a runtime value, an arm alone ending the loads", `    s = T.alloc_buffer((128,), "float32", scope="local")
    for i in range(4):
        s[i] = A[i, tid]
    for f in range(64):
        if f < n:
            T.ptx.ex2.approx.ftz.f32(s[f], s[f])
        s[f] = s[f] * T.float32(2.0)
    S[0, tid] = s[0] + s[127]
`, false},
	} {
		res, _ := analyze(t, kernel("1", c.body))
		k := res.Kernels[0]
		on, off := withAndWithout(k, memory.SetInertRule)
		if a, b := ctaText(on, k), ctaText(off, k); a != b {
			t.Errorf("%s: passing over inert loops differs:\n%s\nexecuting them:\n%s", c.name, a, b)
		}
		// the steps a passed-over loop would have counted are counted
		// (a branch counts its longer arm)
		if so, sf := memory.Steps(on), memory.Steps(off); c.inert && !strings.Contains(c.name, "branch") && so != sf {
			t.Errorf("%s: %d steps counted, %d without the rule", c.name, so, sf)
		}
		switch wo, wf := memory.Work(on), memory.Work(off); {
		case c.inert && wo*2 > wf:
			t.Errorf("%s: %d statements executed, %d without the rule: want under half", c.name, wo, wf)
		case !c.inert && wo != wf:
			t.Errorf("%s: %d statements executed, %d without the rule: want the loop executed", c.name, wo, wf)
		}
	}
}

// TestQuietCode: code the machine cannot execute (a branch on data read
// from memory, a loop whose bound is a kernel parameter) leaves the
// figures known when it counts nothing whichever way it runs
// (testdata/memory/quiet_branches.py, whose counters Nsight Compute
// measured: TestNcuAgreement), and unknown when it holds a memory access.
func TestQuietCode(t *testing.T) {
	src, err := os.ReadFile("../../testdata/memory/quiet_branches.py")
	if err != nil {
		t.Fatal(err)
	}
	res, ms := analyze(t, string(src))
	if len(ms) != 3 {
		t.Fatalf("%d kernels, want 3", len(ms))
	}
	for i, m := range ms {
		if m.Total.Unknown != "" {
			t.Errorf("%s: unknown %q, want known figures", res.Kernels[i].Name, m.Total.Unknown)
		}
	}
	for _, c := range []struct{ name, body, why string }{
		{"a store under a branch on data", `    if A[0, tid] > T.float32(0.5):
        S[0, tid] = A[1, tid]
    A[2, tid] = S[0, tid]
`, "a branch on a floating-point value is decided at run time"},
		{"a load in a loop of a runtime bound", `    acc = T.alloc_buffer((1,), "float32", scope="local")
    acc[0] = T.float32(0.0)
    for k in T.serial(n):
        acc[0] = acc[0] + S[k % 32, tid]
    A[0, tid] = acc[0]
`, "loop k: n is a runtime value (a `# tilels: bind n=...` line above the kernel counts a launch with that value)"},
	} {
		_, ms := analyze(t, kernel("1", c.body))
		if why := ms[0].Total.Unknown; why != c.why {
			t.Errorf("%s: unknown %q, want %q", c.name, why, c.why)
		}
	}
}
