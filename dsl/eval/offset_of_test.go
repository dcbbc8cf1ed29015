package eval_test

import (
	"fmt"
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

// TestMathIsFinite: math.isfinite, isinf and isnan of Python floats
// (mega_moe.py's use_activation_clamp).
func TestMathIsFinite(t *testing.T) {
	const src = `import math
from tvm.script import tirx as T

VALS = [math.isfinite(1.5), math.isfinite(float("inf")), math.isinf(-math.inf), math.isnan(math.nan), math.isnan(2)]


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (5,), "int32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A[0] = 1 if VALS[0] else 0
    A[1] = 1 if VALS[1] else 0
    A[2] = 1 if VALS[2] else 0
    A[3] = 1 if VALS[3] else 0
    A[4] = 1 if VALS[4] else 0
`
	p, _ := evalSource("k.py", []byte(src), eval.Options{})
	got := eval.Dump(p)
	for i, want := range []int{1, 0, 1, 1, 0} {
		if line := fmt.Sprintf("A[%d] = %d\n", i, want); !strings.Contains(got, line) {
			t.Errorf("no %q in\n%s", line, got)
		}
	}
}
