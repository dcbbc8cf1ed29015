package tirxlib_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/tirxlib"
)

// TestEvaluateOpaque: T.evaluate of a call tilels does not model is an
// ignored statement, warned, as an expression statement of one is; it was
// dropped without a word.
func TestEvaluateOpaque(t *testing.T) {
	src := `from tvm.script import tirx as T

@T.prim_func
def k(out: T.Buffer((32,), "int32")):
    T.device_entry()
    tx = T.thread_id([32])
    T.evaluate(T.call_extern("int32", "foo", 1))
    T.evaluate(T.call_extern("int32", "bar", 2))
    out[tx] = tx
`
	got := evaluate(t, src, tirxlib.Library())
	want := "7:5 warning[eval/unresolved] `T.evaluate(T.call_extern(\"int32\", \"foo\", 1))` is not modelled by tilels; statement ignored (and 1 more statement in this kernel)"
	if !strings.Contains(got, want) {
		t.Errorf("no %q in\n%s", want, got)
	}
}
