package coverage

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/lower"
)

// TestClassify checks the strict metric on decision records: a decline
// saying tilels does not lower the call is not dispatched even when a
// lower-priority variant was picked.
func TestClassify(t *testing.T) {
	notLow := dispatch.Rejection{Variant: "dsmem", Outcome: dispatch.Declined, Reason: "tilels does not lower dsmem copies yet (cp.async.bulk shared::cluster)"}
	rej := dispatch.Rejection{Variant: "ldgsts", Outcome: dispatch.Rejected, Reason: "unsupported memory scopes"}
	for _, c := range []struct {
		name string
		d    *dispatch.Decision
		o    Outcome
		why  string
	}{
		{"variant", &dispatch.Decision{Variant: "tma", Declined: []dispatch.Rejection{rej}}, Variant, ""},
		{"variant after does-not-lower", &dispatch.Decision{Variant: "tma", Declined: []dispatch.Rejection{notLow}}, NoVariant, "dsmem: tilels does not lower dsmem copies yet (cp.async.bulk shared::cluster)"},
		{"declined", &dispatch.Decision{Declined: []dispatch.Rejection{rej}}, Declined, "ldgsts: unsupported memory scopes"},
		{"does not lower", &dispatch.Decision{Declined: []dispatch.Rejection{rej, notLow}}, NoVariant, "dsmem: tilels does not lower dsmem copies yet (cp.async.bulk shared::cluster)"},
		{"no registered variants", &dispatch.Decision{Explanation: &dispatch.Explanation{Op: "gemm", Error: "no registered variants for this op/target"}}, NoVariant, "no registered variants for this op/target (gemm)"},
		{"unknown dispatch name", &dispatch.Decision{Explanation: &dispatch.Explanation{Op: "copy", Forced: "__probe__", Error: "no variant named '__probe__' is registered"}}, NoVariant, "no variant named '__probe__' is registered"},
		{"another release's name", &dispatch.Decision{Explanation: &dispatch.Explanation{Op: "copy", Forced: "reg", Error: "no variant named 'reg' is registered"}}, Declined, "no variant named 'reg' is registered"},
	} {
		o, why := classify(c.d)
		if o != c.o || why != c.why {
			t.Errorf("%s: got %s %q, want %s %q", c.name, o, why, c.o, c.why)
		}
	}
}

const srcHeader = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import F, P, S, TileLayout
`

// TestMeasureOutcomes measures one file holding a site of each outcome the
// pipeline gives without depending on which families are implemented.
func TestMeasureOutcomes(t *testing.T) {
	src := srcHeader + `
@T.prim_func
def cuda_kernel(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1]); T.lane_id([32]); T.thread_id([32])
    S_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[(32, 32)]))
    Tx.warp.copy(S_smem[0:32, 0:32], A[0:32, 0:32])
    Tx.warp.copy(S_smem[0:32, 0:32], A[0:32, 0:32], dispatch="__probe__")
    Tx.cta.sub(S_smem[0:32, 0:32], T.float32(1.0), S_smem[0:32, 0:32])
    Tx.memset(S_smem[0:32, 0:32], T.float32(0.0))

@T.prim_func
def trn_kernel() -> None:
    T.device_entry()
    A_sbuf = T.alloc_buffer((128, 512), "float32", scope="trn.sbuf", layout=TileLayout(S[(128, 512) : (1 @ P, 1 @ F)]))
    B_sbuf = T.alloc_buffer((128, 512), "float32", scope="trn.sbuf", layout=TileLayout(S[(128, 512) : (1 @ P, 1 @ F)]))
    Tx.sqrt(B_sbuf, A_sbuf)

def never_called(n):
    @T.prim_func
    def k(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (n,), "float32")
        T.device_entry()
        T.cta_id([1]); T.thread_id([1])
        B = T.alloc_buffer((n,), "float32", scope="local")
        Tx.copy(B[0:n], A[0:n])
    return k
`
	r := Measure("outcomes.py", []byte(src), lower.Options{})
	want := []struct {
		text string
		o    Outcome
		why  string // a substring of the reason
	}{
		{"Tx.warp.copy", Variant, ""},
		{"Tx.warp.copy", NoVariant, "no variant named '__probe__' is registered"},
		{"Tx.cta.sub", Declined, "non-commutative op sub cannot have constant lhs"},
		{"Tx.memset", NoVariant, "no registered variants for this op/target (memset)"},
		{"Tx.sqrt", Variant, ""}, // Trainium: unary_with_bias_scale (dispatch/trn)
		{"Tx.copy", Unresolved, "n"},
	}
	if len(r.Sites) != len(want) {
		t.Fatalf("got %d sites, want %d: %+v", len(r.Sites), len(want), r.Sites)
	}
	for i, w := range want {
		s := r.Sites[i]
		if s.Text != w.text || s.Outcome != w.o || !strings.Contains(s.Reason, w.why) {
			t.Errorf("site %d (line %d): got %s %s %q, want %s %s containing %q", i, s.Line, s.Text, s.Outcome, s.Reason, w.text, w.o, w.why)
		}
	}
	if got := r.Sites[5].Reason; got != "needs n" {
		t.Errorf("unresolved reason: got %q, want %q", got, "needs n")
	}
	var tl tally
	for _, s := range r.Sites {
		tl.add(s)
	}
	if tl.dispatched() != 3 || tl.n[NotCUDA] != 0 || tl.all != 6 {
		t.Errorf("tally: dispatched %d, not CUDA %d, sites %d; want 3, 0, 6", tl.dispatched(), tl.n[NotCUDA], tl.all)
	}
}

func TestOpGroup(t *testing.T) {
	for op, g := range map[string]string{"copy": "copy", "copy_async": "copy_async", "cast": "elementwise", "fma": "elementwise",
		"gemm": "gemm", "gemm_async": "gemm_async", "max": "sum/max/min", "sum": "sum/max/min", "permute_layout": "permute_layout",
		"maximum": "other", "memset": "other", "select": "other"} {
		if got := opGroup(op); got != g {
			t.Errorf("opGroup(%s) = %s, want %s", op, got, g)
		}
	}
}
