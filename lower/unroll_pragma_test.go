package lower

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// TestUnrollPragmaValues: the unroll pragma each form of T.serial gives
// its loop (ir.For.Unroll), per release: unroll= is a truth value before
// 0.27 and a bool or positive int from 0.27 on (tirx/script/builder/ir.py
// of each wheel); annotations give disable_unroll and pragma_unroll.
func TestUnrollPragmaValues(t *testing.T) {
	const src = `from tvm.script import tirx as T


@T.prim_func
def k(A: T.Buffer((64,), "int32")):
    T.device_entry()
    tx = T.thread_id([32])
    for i in LOOP:
        A[i] = A[i] + 1
# tilels: reference=REL
`
	for _, tc := range []struct {
		rel, loop string
		want      int64
		err       string // substring of an error diagnostic
	}{
		{"0.27", "T.serial(8)", 0, ""},
		{"0.27", "T.serial(8, unroll=True)", ir.UnrollFull, ""},
		{"0.27", "T.serial(8, unroll=False)", 1, ""},
		{"0.27", "T.serial(8, unroll=4)", 4, ""},
		{"0.27", "T.serial(8, unroll=None)", 0, ""},
		{"0.27", "T.serial(8, unroll=0)", 0, "unroll must be a positive integer"},
		{"0.27", `T.serial(8, unroll="x")`, 0, "unroll must be a bool, a positive integer, or None"},
		{"0.27", `T.serial(8, annotations={"disable_unroll": True})`, 1, ""},
		{"0.27", `T.serial(8, annotations={"pragma_unroll": True})`, ir.UnrollFull, ""},
		{"0.27", `T.serial(8, annotations={"pragma_unroll": 2})`, 2, ""},
		{"0.27", `T.serial(8, annotations={"pragma_unroll": True}, unroll=False)`, 1, ""},
		{"0.25", "T.serial(8, unroll=4)", ir.UnrollFull, ""},
		{"0.25", "T.serial(8, unroll=0)", 1, ""},
		{"0.25", "T.serial(8, unroll=False)", 1, ""},
	} {
		text := strings.NewReplacer("LOOP", tc.loop, "REL", tc.rel).Replace(src)
		res := Analyze(source.NewFile("k.py", []byte(text)), Options{Path: "k.py"})
		var errs []string
		for _, d := range res.Diags {
			if d.Severity.String() == "error" {
				errs = append(errs, d.Message)
			}
		}
		name := tc.rel + " " + tc.loop
		if tc.err != "" {
			if !strings.Contains(strings.Join(errs, "\n"), tc.err) {
				t.Errorf("%s: errors %q, want one containing %q", name, errs, tc.err)
			}
			continue
		}
		if len(errs) > 0 || len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Fatalf("%s: errors %q, %d kernels", name, errs, len(res.Kernels))
		}
		var got []int64
		ir.WalkStmts(res.Kernels[0].Lowered.Body, func(s ir.Stmt) {
			if f, ok := s.(*ir.For); ok {
				got = append(got, f.Unroll)
			}
		})
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: loop unroll %v, want [%d]", name, got, tc.want)
		}
	}
}
