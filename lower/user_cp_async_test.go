package lower

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// A hand-written cp.async's pred= is its @p guard, as the reference prints
// it (the 0.27 wheel: `@p cp.async.ca.shared.global [%0], [%1], 8;` after
// `setp.ne.b32 p, %2, 0`), not the src-size its place would fill: a
// src-size of 1 would copy one byte and zero the rest. The memory figures
// follow: a guard that is 0 in every lane reads nothing, so the LDGSTS
// issues no global request.
func TestUserCpAsyncPred(t *testing.T) {
	const src = `from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4), "float16")):
    T.device_entry()
    cta_id = T.cta_id([1])
    tid = T.thread_id([32])
    A_shared = T.alloc_shared([4], "float16")
    T.ptx["cp.async.ca.shared.global"](A_shared.ptr_to([0]), A.ptr_to([0]), 8, pred=T.int32(PRED))
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    for i in T.serial(4):
        A[i] = A_shared[i] + T.float16(1)
`
	for _, c := range []struct {
		pred     string
		requests int64
	}{{"1", 1}, {"0", 0}} {
		f := source.NewFile("k.py", []byte(strings.Replace(src, "PRED", c.pred, 1)))
		res := Analyze(f, Options{})
		cu, err := CUDA(res.Kernels, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"@p cp.async.ca.shared.global [%0], [%1], 8;", "_8_pred("} {
			if !strings.Contains(cu, want) {
				t.Errorf("pred=%s: the CUDA lacks %q", c.pred, want)
			}
		}
		if strings.Contains(cu, "src_size") {
			t.Errorf("pred=%s: printed as a src-size", c.pred)
		}
		m := res.Kernels[0].Memory()
		if m == nil || m.Total.CpAsync.Instructions != 1 || m.Total.GlobalLoad.Requests != c.requests {
			t.Errorf("pred=%s: figures %+v, want 1 cp.async and %d global load requests", c.pred, m.Total, c.requests)
		}
	}
}
