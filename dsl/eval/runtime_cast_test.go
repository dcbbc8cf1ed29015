package eval_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/eval"
)

// TestRuntimeExtentCast: a parameter buffer's one extent over an integer
// cast of a scalar parameter (gdn_prefill_sm100.py's flat state buffers,
// `T.cast(num_sequences, "int64") * HV * 128 * 128`) is a runtime outer
// extent as the uncast product is; a float cast is not.
func TestRuntimeExtentCast(t *testing.T) {
	const src = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (EXTENT,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    A[tid] = T.float32(1)
`
	for _, c := range []struct {
		extent     string
		unresolved bool
	}{
		{"n * 128", false},
		{`T.cast(n, "int64") * 128`, false},
		{`T.cast(n, "float32") * 128`, true},
	} {
		p, _ := evalSource("k.py", []byte(strings.Replace(src, "EXTENT", c.extent, 1)), eval.Options{})
		got := eval.Dump(p)
		if strings.Contains(got, "dynamic buffer dimension") != c.unresolved {
			t.Errorf("%s: unresolved %v, want %v:\n%s", c.extent, !c.unresolved, c.unresolved, got)
		}
	}
}
