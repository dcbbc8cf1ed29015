package lower

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/release"
)

const migrateSrc = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

NAME = "vec_auto"


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    r = T.alloc_local((4,), "float32")
    Tx.warp.copy(A_s[:, :], A[:, :], dispatch='vec_auto')
    T.cuda.warp_sync()
    Tx.copy(r[:], A_s[tid, 0:4], dispatch="vec_auto")
    Tx.warp.copy(B[:, :], A[:, :], dispatch="vec_auto")
    Tx.copy(r[:], A_s[tid, 0:4], dispatch=NAME)
`

// TestDispatchFixes: under 0.25, dispatch="vec_auto" is renamed to the
// 0.25 variant whose predicate holds (gmem_smem for global->shared, reg for
// shared->local, each preferred), to both when neither holds (a global ->
// global copy: none preferred), and not at all when the name comes from a
// variable. Under 0.27 the same file has nothing to rename.
func TestDispatchFixes(t *testing.T) {
	f := source.NewFile("k.py", []byte(migrateSrc))
	snap, err := NewSession(Options{Reference: "0.25"}).Analyze(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fx := range snap.DispatchFixes() {
		line, col := f.Position(fx.Span.Start)
		got = append(got, fmt.Sprintf("%d:%d %s -> %s preferred=%v %s", line, col, f.Text(fx.Span), fx.NewText, fx.Preferred, fx.Diag))
	}
	want := []string{
		`16:47 'vec_auto' -> 'gmem_smem' preferred=true dispatch/forced-variant`,
		`18:43 "vec_auto" -> "reg" preferred=true dispatch/forced-variant`,
		`19:45 "vec_auto" -> "gmem_smem" preferred=false dispatch/forced-variant`,
		`19:45 "vec_auto" -> "reg" preferred=false dispatch/forced-variant`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fixes under 0.25:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Every fix sits on a forced-variant error at the same span.
	for _, fx := range snap.DispatchFixes() {
		found := false
		for _, d := range snap.Diags {
			found = found || (d.Code == fx.Diag && d.Span == fx.Span && strings.HasSuffix(d.Message, "no variant named 'vec_auto' is registered"))
		}
		if !found {
			t.Errorf("no diagnostic at the fix %v", fx)
		}
	}
	if _, ok := snap.PinFix(); ok {
		t.Error("a pin offered for a release the setting chose")
	}

	snap, err = NewSession(Options{Reference: "0.27"}).Analyze(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if fx := snap.DispatchFixes(); len(fx) != 0 {
		t.Errorf("fixes under 0.27: %v", fx)
	}
}

// TestReferenceLine: the hover's line and the status bar's label for each
// way a release is chosen.
func TestReferenceLine(t *testing.T) {
	for _, tc := range []struct {
		opts        Options
		src         string
		line, label string
	}{
		{Options{Reference: "0.26"}, "", "reference: apache-tvm 0.26.0 (set)", "TIRx 0.26 ✓ set"},
		{Options{}, "# tilels: reference=0.25\n", "reference: apache-tvm 0.25.0.post1 (pinned by the file)", "TIRx 0.25 ✓ pinned"},
		{Options{Installed: Installed{Version: "0.27.0.post1", Where: "/ws/.venv"}}, "", "reference: apache-tvm 0.27.0.post1 (auto: installed in /ws/.venv)", "TIRx 0.27 ✓ auto"},
		{Options{Installed: Installed{Version: "0.28.0", Where: "/ws/.venv"}}, "", "reference: apache-tvm 0.27.0.post1 (auto: apache-tvm 0.28.0 installed in /ws/.venv (not modelled; the newest profile, 0.27, is used))", "TIRx 0.27 ≈ auto"},
		{Options{}, "from tvm.backend.cuda.operator import x\n", "reference: apache-tvm 0.25.0.post1 (auto: inferred from the file: import path `tvm.backend.cuda.operator` (0.25 only))", "TIRx 0.25 ≈ auto"},
		{Options{}, "", "reference: apache-tvm " + release.Newest.String() + " (auto: no apache-tvm found, the newest profile)", "TIRx " + release.Newest.Short() + " ≈ auto"},
	} {
		res := Analyze(source.NewFile("k.py", []byte(tc.src)), tc.opts)
		if l := res.Reference.Line(); l != tc.line {
			t.Errorf("%+v %q: line %q, want %q", tc.opts, tc.src, l, tc.line)
		}
		if l := res.Reference.Label(); l != tc.label {
			t.Errorf("%+v %q: label %q, want %q", tc.opts, tc.src, l, tc.label)
		}
	}
}
