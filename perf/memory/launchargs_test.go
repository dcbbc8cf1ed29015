package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestLaunchArgs: a grid over a kernel's scalar parameter is a runtime
// value, and the reason names the parameter and the line that gives it
// one; with the line (ir.Func.LaunchArgs) the figures count that launch,
// the device code reading the parameter included (a loop of n // 2
// stores a CTA).
func TestLaunchArgs(t *testing.T) {
	const src = `from tvm.script import tirx as T


LINE@T.prim_func
def k(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (128, 32), "float32")
    T.device_entry()
    bx = T.cta_id([n])
    tid = T.thread_id([32])
    for i in range(n // 2):
        A[bx * 4 + i, tid] = 1.0
# tilels: reference=0.27
`
	for _, tc := range []struct {
		line string
		why  string
		reqs int64
	}{
		{"", "the grid's x extent is a runtime value (a `# tilels: bind n=...` line above the kernel counts a launch with those values)", 0},
		{"# tilels: bind n=4\n", "", 4 * 2},
		{"# tilels: bind n=6\n", "", 6 * 3},
	} {
		_, ms := analyze(t, strings.Replace(src, "LINE", tc.line, 1))
		f := ms[0].Total
		switch {
		case f.Unknown != tc.why:
			t.Errorf("%q: unknown %q, want %q", tc.line, f.Unknown, tc.why)
		case tc.why == "" && f.GlobalStore != memory.Global{Requests: tc.reqs, Sectors: 4 * tc.reqs, IdealSectors: 4 * tc.reqs}:
			t.Errorf("%q: global stores %+v, want %d requests", tc.line, f.GlobalStore, tc.reqs)
		}
	}
}

// TestLaunchArgsHint: a loop over a scalar parameter with no value names
// the bind line that gives it one, and so does one over a scalar the body
// declares (n = T.int32(), bound through a buffer's shape: a launch
// argument too); with the line, the loop is counted.
func TestLaunchArgsHint(t *testing.T) {
	const src = `from tvm.script import tirx as T


LINE@T.prim_func
def k(A_ptr: T.handle PARAM):
DECL    A = T.match_buffer(A_ptr, (ROWS, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    for i in range(n):
        A[i, tid] = 1.0
# tilels: reference=0.27
`
	const hint = "loop i: n is a runtime value (a `# tilels: bind n=...` line above the kernel counts a launch with that value)"
	for _, tc := range []struct {
		line, param, decl, rows, why string
		stores                       int64
	}{
		{"", ", n: T.int32", "", "128", hint, 0},
		{"", "", "    n = T.int32()\n", "n", hint, 0},
		{"# tilels: bind n=12\n", "", "    n = T.int32()\n", "n", "", 12},
	} {
		r := strings.NewReplacer("LINE", tc.line, "PARAM", tc.param, "DECL", tc.decl, "ROWS", tc.rows)
		_, ms := analyze(t, r.Replace(src))
		f := ms[0].Total
		if f.Unknown != tc.why {
			t.Errorf("%q: unknown %q, want %q", tc.line+tc.param+tc.decl, f.Unknown, tc.why)
		}
		if tc.why == "" && f.GlobalStore.Requests != tc.stores {
			t.Errorf("%q: %d store requests, want %d", tc.line+tc.decl, f.GlobalStore.Requests, tc.stores)
		}
	}
}
