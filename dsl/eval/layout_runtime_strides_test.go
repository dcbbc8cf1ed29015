package eval_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/eval"
)

// TestRuntimeStrideLayout: a shard whose memory strides are runtime
// values (flash_attention_backward.py's RowiseSwizzleOffset: each
// thread's signed strides in registers) evaluates, and its layout's
// apply(offset)["m"] is the sum of the offset's digits times the strides
// (the first digit keeps what is left); apply by coordinates too. Any
// other use of such a layout is not modelled.
func TestRuntimeStrideLayout(t *testing.T) {
	const src = `from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "int32")
    T.device_entry()
    T.cta_id([1])
    lane = T.thread_id([32])
    st = T.alloc_local((2,), "int32")
    st[0] = T.Select(lane & 1 > 0, -8, 8)
    st[1] = 16
    sw = TileLayout(S[(4, 2, 8) : [st[1], st[0], 0]])
    A[lane] = EXPR
`
	for _, c := range []struct{ expr, want string }{
		{`sw.apply(lane)["m"]`, "A[lane] = lane // 8 // 2 * st[1] + lane // 8 % 2 * st[0]\n"},
		{`sw.apply(1, 1, 3)["m"]`, "A[lane] = st[1] + st[0]\n"},
		{`sw.size()`, "not modelled"},
	} {
		p, _ := evalSource("k.py", []byte(strings.Replace(src, "EXPR", c.expr, 1)), eval.Options{})
		if got := eval.Dump(p); !strings.Contains(got, c.want) {
			t.Errorf("%s: no %q in\n%s", c.expr, c.want, got)
		}
	}
}
