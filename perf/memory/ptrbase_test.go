package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// ptrBaseKernel carves a global buffer and a shared arena into typed
// buffers through pointers (the DeepGEMM ports' form): Y starts OFF
// float32 elements into A, Q 128 bytes into the arena. A warp loads
// Y[tid] and stores it to Q[tid], then loads Q[tid ^ 1] through the
// pointer itself.
const ptrBaseKernel = `from tvm.ir import PointerType, PrimType
from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    smem = T.alloc_buffer((1024,), "uint8", scope="shared.dyn")
    y_data: T.let = T.reinterpret(PointerType(PrimType("float32")), A.ptr_to([OFF]))
    q_data: T.let = T.reinterpret(PointerType(PrimType("float32")), smem.ptr_to([128]))
    Y = T.decl_buffer((32,), "float32", data=y_data, scope="global")
    Q = T.decl_buffer((32,), "float32", data=q_data, scope="shared.dyn")
    Q[tid] = Y[tid]
    T.cuda.cta_sync()
    A[tid] = Q[tid ^ 1]
# tilels: reference=0.27
`

// TestPtrBase: buffers declared on pointers into other buffers are
// placed at the pointers' offsets: 32 float32 loads from 16 bytes into A
// span 5 sectors (4 from its start), and the shared accesses are known.
func TestPtrBase(t *testing.T) {
	checkPtrBase(t, ptrBaseKernel, []ptrBaseCase{{"0", 4}, {"4", 5}, {"8", 4}})
}

// TestPtrByteOffsetBase: the same buffers declared on pointers offset by
// bytes (T.ptr_byte_offset of a buffer's data, T.handle_add_byte_offset
// of one of those) are placed as the T.reinterpret ones are.
func TestPtrByteOffsetBase(t *testing.T) {
	src := strings.Replace(ptrBaseKernel, `T.reinterpret(PointerType(PrimType("float32")), A.ptr_to([OFF]))`, `T.ptr_byte_offset(A.data, OFF, "float32")`, 1)
	src = strings.Replace(src, `T.reinterpret(PointerType(PrimType("float32")), smem.ptr_to([128]))`, `T.handle_add_byte_offset(T.ptr_byte_offset(smem.data, 64, "uint8"), 64)`, 1)
	checkPtrBase(t, src, []ptrBaseCase{{"0", 4}, {"16", 5}, {"32", 4}})
}

// ptrBaseCase is ptrBaseKernel's OFF and the sectors its warp's loads of
// Y span.
type ptrBaseCase struct {
	off     string
	sectors int64
}

func checkPtrBase(t *testing.T, src string, cases []ptrBaseCase) {
	t.Helper()
	for _, c := range cases {
		_, ms := analyze(t, strings.Replace(src, "OFF", c.off, 1))
		f := ms[0].Total
		if f.Unknown != "" {
			t.Fatalf("offset %s: unknown %q", c.off, f.Unknown)
		}
		if f.GlobalLoad != (memory.Global{Requests: 1, Sectors: c.sectors, IdealSectors: 4}) {
			t.Errorf("offset %s: global load %+v, want 1 request of %d sectors", c.off, f.GlobalLoad, c.sectors)
		}
		if f.SharedStore.Instructions != 1 || f.SharedStore.Wavefronts != 1 || f.SharedLoad.Instructions != 1 || f.SharedLoad.Wavefronts != 1 {
			t.Errorf("offset %s: shared store %+v, load %+v", c.off, f.SharedStore, f.SharedLoad)
		}
	}
}
