package eval_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/eval"
)

// TestOffsetOf: Buffer.elem_offset_of(indices) is the element's offset
// through the buffer's layout (what access_ptr(offset=...) takes): the
// row-major sum at runtime indices too, a laid-out buffer's at constant
// indices, its own element offset added with inner=False;
// byte_offset_of is that in bytes. A layout other than row-major at a
// runtime index is not modelled.
func TestOffsetOf(t *testing.T) {
	const src = `from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([4])
    C = T.alloc_buffer((4, 8), "float32", scope="shared", layout=TileLayout(S[(4, 8):(1, 4)]))
    V = T.decl_buffer((2, 8), "float32", A.data, elem_offset=16)
    I = T.alloc_buffer((1,), "int32", scope="local")
    I[0] = EXPR
`
	for _, c := range []struct{ expr, want string }{
		{"A.elem_offset_of([1, 2])", "I[0] = 10\n"},
		{"A.elem_offset_of([tid, 2])", "I[0] = 2 + tid * 8\n"},
		{"A.byte_offset_of([tid, 2])", "I[0] = (2 + tid * 8) * 4\n"},
		{"C.elem_offset_of([1, 2])", "I[0] = 9\n"},
		{"V.elem_offset_of([1, 0], inner=False)", "I[0] = 24\n"},
		{"C.elem_offset_of([tid, 2])", "through a layout other than row-major at runtime indices"},
	} {
		p, _ := evalSource("k.py", []byte(strings.Replace(src, "EXPR", c.expr, 1)), eval.Options{})
		if got := eval.Dump(p); !strings.Contains(got, c.want) {
			t.Errorf("%s: no %q in\n%s", c.expr, c.want, got)
		}
	}
}
