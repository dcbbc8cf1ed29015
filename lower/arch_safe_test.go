package lower

import (
	"testing"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/dsl/source"
)

// tcgen05Bookkeeping is a kernel that writes tcgen05's bookkeeping
// itself (alloc, fence, commit, wait, dealloc, relinquish) and passes a
// T.ptx.pred operand to a tcgen05.mma, as TIRx-kernels' flashkda does.
const tcgen05Bookkeeping = `from tvm.script import tirx as T

_MMA = "tcgen05.mma.cta_group::1.kind::f16"


@T.prim_func
def tc(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    taddr = T.alloc_buffer((1,), "int32", scope="shared")
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(taddr[0]), T.uint32(128))
    T.ptx.tcgen05.fence__after_thread_sync()
    leader = T.cuda.elect_sync()
    T.evaluate(
        T.ptx[_MMA](
            T.cast(taddr[0], "uint32"),
            T.cast(taddr[0] + 8, "uint32"),
            T.uint64(0),
            T.uint32(134743184),
            T.uint32(0), T.uint32(0), T.uint32(0), T.uint32(0),
            T.ptx.pred(1),
            pred=leader,
        )
    )
    T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(T.address_of(bar[0]))
    T.ptx.tcgen05.wait__ld.sync.aligned()
    T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(T.cast(taddr[0], "uint32"), T.uint32(128))
    T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
`

// TestArchSafeTcgen05 pins what ArchSafe knows of the tcgen05 bookkeeping
// intrinsics and of T.ptx.pred: at an sm_100-family target it clears the
// kernel (no print needed, which was 6.5 ms of each keystroke in the
// largest TIRx-kernels file), below it defers to CheckArch, which finds
// what is missing; and a cleared kernel never has an arch error.
func TestArchSafeTcgen05(t *testing.T) {
	for _, tc := range []struct {
		arch string
		safe bool
	}{{"sm_100a", true}, {"sm_100f", true}, {"sm_100", false}, {"sm_90a", false}, {"sm_80", false}} {
		res := Analyze(source.NewFile("k.py", []byte(tcgen05Bookkeeping)), Options{Arch: tc.arch})
		if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Fatalf("%s: want one lowered kernel, got %d", tc.arch, len(res.Kernels))
		}
		k := res.Kernels[0]
		safe := cuda.ArchSafe(k.Lowered, tc.arch)
		errs, err := cuda.CheckArch([]cuda.Kernel{{Func: k.Lowered, Launch: k.Launch}}, cuda.Options{Arch: tc.arch})
		if err != nil {
			t.Fatal(err)
		}
		if safe != tc.safe {
			t.Errorf("%s: ArchSafe = %v, want %v", tc.arch, safe, tc.safe)
		}
		if safe && len(errs) > 0 {
			t.Errorf("%s: ArchSafe, but CheckArch reports %v", tc.arch, errs[0])
		}
		if !tc.safe && len(errs) < 7 {
			t.Errorf("%s: CheckArch reports %d errors, want one per tcgen05 call (7)", tc.arch, len(errs))
		}
	}
}
