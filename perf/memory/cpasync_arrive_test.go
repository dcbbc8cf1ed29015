package memory_test

import (
	"strings"
	"testing"
)

// cpAsyncArriveKernel issues two 16-byte cp.async per lane and arrives on
// an mbarrier when they complete; ARRIVE is an arrive between them or
// nothing (arrive2.cu of the measurement, written in TIRx).
const cpAsyncArriveKernel = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256,), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((256,), "int32", scope="shared")
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    T.ptx["cp.async.cg.shared.global"](S.ptr_to([tid * 4]), A.ptr_to([tid * 4]), 16)
ARRIVE
    T.ptx["cp.async.cg.shared.global"](S.ptr_to([128 + tid * 4]), A.ptr_to([128 + tid * 4]), 16)
    T.ptx.cp.async_.mbarrier.arrive.noinc.shared__cta.b64(bar.ptr_to([0]))
# tilels: reference=0.27
`

// TestCpAsyncArrive: cp.async.mbarrier.arrive counts no LSU traffic and
// does not end a run of cp.async: measured on sm_90, cp.async; arrive;
// cp.async; arrive executes the same shared loads (the run's three
// predicated-off LDS, once) as both cp.async before one arrive.
func TestCpAsyncArrive(t *testing.T) {
	arrive := "    T.ptx.cp.async_.mbarrier.arrive.noinc.shared__cta.b64(bar.ptr_to([0]))\n"
	for _, between := range []string{"", arrive} {
		_, ms := analyze(t, strings.Replace(cpAsyncArriveKernel, "ARRIVE\n", between, 1))
		f := ms[0].Total
		if f.Unknown != "" {
			t.Fatalf("arrive between: %v: unknown %q", between != "", f.Unknown)
		}
		if f.SharedLoad.Instructions != 3 || f.CpAsync.Instructions != 2 || f.SharedStore.Instructions != 0 {
			t.Errorf("arrive between: %v: shared loads %+v, cp.async %+v, shared stores %+v; want 3 loads (one run), 2 cp.async",
				between != "", f.SharedLoad, f.CpAsync, f.SharedStore)
		}
	}
}
