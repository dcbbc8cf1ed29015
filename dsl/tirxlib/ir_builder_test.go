package tirxlib_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/tirxlib"
)

// TestIRBuilderName: IRBuilder.name (static, or through current()) renames
// a buffer or a variable and returns it; name_many renames each.
func TestIRBuilderName(t *testing.T) {
	src := `from tvm.script import tirx as T
from tvm.script.ir_builder import IRBuilder

@T.prim_func
def k(out: T.Buffer((32,), "int32")):
    T.device_entry()
    tx = T.thread_id([32])
    s = T.alloc_buffer((32,), "int32", scope="shared")
    s2 = IRBuilder.current().name("staging", s)
    a, b = IRBuilder.name_many(["first", "second"], [T.alloc_buffer((4,), "int32", scope="local"), 3])
    s2[tx] = tx + b
    out[tx] = s[tx]
`
	got := evaluate(t, src, tirxlib.Library())
	for _, want := range []string{"alloc staging: shared int32[32]", "staging[tx] = tx + 3", "out[tx] = staging[tx]", "alloc first: local int32[4]"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "eval/") {
		t.Errorf("diagnostics:\n%s", got)
	}
}
