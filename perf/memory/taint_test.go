package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestTaintWhileDone: a persistent loop whose `done[0] = 1` sits under a
// branch on a register nothing wrote (the cluster launch control's answer
// in the corpus's schedulers) has unknown figures that name that
// register, and the analysis does not run the loop until its step bound.
func TestTaintWhileDone(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    done = T.alloc_buffer((1,), "int32", scope="local")
    nxt = T.alloc_buffer((1,), "int32", scope="local")
    done[0] = 0
    while done[0] == 0:
        S[0, tid] = A[0, tid]
        T.cuda.cta_sync()
        A[1, tid] = S[0, tid]
        if nxt[0] == -1:
            done[0] = 1
`))
	why := ms[0].Total.Unknown
	if !strings.Contains(why, "nxt") || strings.Contains(why, "stopped") {
		t.Errorf("unknown %q, want the reason to name nxt", why)
	}
	// one iteration and the test of its condition; without the taint the
	// loop ran to its 65,536-iteration bound
	if n := memory.Steps(ms[0]); n > 100 {
		t.Errorf("the analysis executed %d steps, want the loop stopped after one iteration", n)
	}
}

// TestTaintBreak: a break under a branch the machine cannot decide makes
// the loop's later iterations unknown (it counted all 300 before), while
// the code before the loop keeps its figures.
func TestTaintBreak(t *testing.T) {
	res, ms := analyze(t, kernel("1", `    nxt = T.alloc_buffer((1,), "int32", scope="local")
    Tx.cta.copy(S[0:1, 0:32], A[0:1, 0:32])
    T.cuda.cta_sync()
    for i in T.serial(300):
        A[1, tid] = S[0, tid]
        if nxt[0] == 1:
            break
`))
	if why := ms[0].Total.Unknown; !strings.Contains(why, "nxt") {
		t.Errorf("total unknown %q, want the reason to name nxt", why)
	}
	if n := memory.Steps(ms[0]); n > 100 {
		t.Errorf("the analysis executed %d steps, want the loop stopped after one iteration", n)
	}
	k := res.Kernels[0]
	if len(k.Calls) == 0 {
		t.Fatal("no tile call")
	}
	if f := ms[0].Calls[k.Calls[0].Call]; f == nil || f.Unknown != "" || f.GlobalLoad.Requests == 0 {
		t.Errorf("the copy before the loop: %+v, want known figures", f)
	}
}

// TestMootStops: once every figure is unknown (a kernel with no tile
// call whose body makes an access at an address the model cannot know),
// the machine stops instead of executing the rest: the 300 iterations
// after the access are not run.
func TestMootStops(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    S[0, n] = 1.0
    for i in T.serial(300):
        A[1, tid] = S[0, tid]
`))
	if ms[0].Total.Unknown == "" {
		t.Fatal("the store at a runtime index has known figures")
	}
	if n := memory.Steps(ms[0]); n > 100 {
		t.Errorf("the analysis executed %d steps after every figure was unknown (%q)", n, ms[0].Total.Unknown)
	}
}

// TestAnalyzeWithin: a bound under the machine's work gives up (nothing
// cached: Cached computes the figures afterwards), one over it gives
// Analyze's figures, and CachedWithin then finds them cached.
func TestAnalyzeWithin(t *testing.T) {
	// (i * i % 32 moves by no constant amount over any period, in 32
	// lanes: every iteration is executed; S is read after the loop, so
	// that its stores and the loads are not elided)
	res, _ := analyze(t, kernel("1", `    for i in T.serial(300):
        S[tid, 0] = A[tid, i * i % 32]
    T.cuda.cta_sync()
    A[0, tid] = S[tid, 0]
`))
	k := res.Kernels[0]
	memory.ResetCache()
	if _, ok := memory.AnalyzeWithin(k.Lowered, k.Launch, 100); ok {
		t.Fatal("300 iterations within 100 statements")
	}
	if _, ok := memory.CachedWithin(k.Lowered, k.Launch, 100); ok {
		t.Fatal("CachedWithin: 300 iterations within 100 statements")
	}
	full := memory.Analyze(k.Lowered, k.Launch)
	got, ok := memory.AnalyzeWithin(k.Lowered, k.Launch, 1_000_000)
	if !ok || got.Total.SharedStore != full.Total.SharedStore || got.Total.GlobalLoad != full.Total.GlobalLoad || got.Total.Unknown != full.Total.Unknown {
		t.Fatalf("within a large bound: ok %v, %+v; want %+v", ok, got.Total, full.Total)
	}
	if _, ok := memory.CachedWithin(k.Lowered, k.Launch, 1_000_000); !ok {
		t.Fatal("CachedWithin gave up within a large bound")
	}
	// now cached: a bound of one statement finds it
	if c, ok := memory.CachedWithin(k.Lowered, k.Launch, 1); !ok || c.Total.SharedStore != full.Total.SharedStore {
		t.Fatalf("a cached kernel under a tiny bound: ok %v", ok)
	}
}
