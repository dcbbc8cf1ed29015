package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// rawTMAKernel is a kernel that encodes its own tensor maps and issues
// hand-written bulk tensor copies (flash_attention_backward.py's form):
// one elected thread per CTA loads a 64x32 float16 box of A (4096 bytes),
// then reduces a 16x8 float32 box into D (512 bytes), in each of 2 CTAs.
// BODY is replaced by more statements.
const rawTMAKernel = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, D_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (256, 128), "float16")
    D = T.match_buffer(D_ptr, (64, 64), "float32")
    a_map: T.let[T.TensorMap()] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", a_map, "float16", 2, A.data,
        128, 256, 256, 32, 64, 1, 1, 0, 0, 2, 0)
    d_map: T.let[T.TensorMap()] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", d_map, "float32", 2, D.data,
        64, 64, 256, 8, 16, 1, 1, 0, 0, 2, 0)
    p_map: T.let[T.TensorMap()] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", p_map, "float16", 2, A.data,
        128, 256, 256, n, 64, 1, 1, 0, 0, 2, 0)
    T.device_entry()
    bx = T.cta_id([2])
    tid = T.thread_id([128])
    S = T.alloc_buffer((64, 32), "float16", scope="shared")
    R = T.alloc_buffer((16, 8), "float32", scope="shared")
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"](
            S.data, T.address_of(a_map), 0, bx * 64, bar.data)
        T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"](
            T.address_of(d_map), 0, bx * 16, R.data)
BODY
# tilels: reference=0.27
`

// TestRawTMA: hand-written bulk tensor copies count as TMA traffic, sized
// by the tensor maps the kernel's host code encodes; a copy through a
// tensor map whose box is a runtime value is unknown.
func TestRawTMA(t *testing.T) {
	_, ms := analyze(t, strings.Replace(rawTMAKernel, "BODY\n", "", 1))
	f := ms[0].Total
	want := memory.Async{Instructions: 4, Bytes: 2 * (64*32*2 + 16*8*4)}
	if f.Unknown != "" || f.TMA != want {
		t.Errorf("TMA %+v (unknown %q), want %+v", f.TMA, f.Unknown, want)
	}
	if f.SharedLoad != (memory.Shared{}) || f.GlobalLoad != (memory.Global{}) || f.GlobalStore != (memory.Global{}) {
		t.Errorf("LSU traffic from bulk copies: %+v", *f)
	}

	_, ms = analyze(t, strings.Replace(rawTMAKernel, "BODY\n", `        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"](
            S.data, T.address_of(p_map), 0, 0, bar.data)
`, 1))
	if u := ms[0].Total.Unknown; !strings.Contains(u, "the box of tensor map p_map is not known") {
		t.Errorf("a copy through a tensor map of a runtime box: unknown %q", u)
	}
}

// TestRawTMACacheKey: two kernels that differ only in the box their host
// code encodes share no cached figures.
func TestRawTMACacheKey(t *testing.T) {
	memory.ResetCache()
	src := strings.Replace(rawTMAKernel, "BODY\n", "", 1)
	res1, _ := analyze(t, src)
	res2, _ := analyze(t, strings.Replace(src, "256, 32, 64, 1, 1, 0, 0, 2, 0)", "256, 16, 64, 1, 1, 0, 0, 2, 0)", 1))
	k1, k2 := res1.Kernels[0], res2.Kernels[0]
	a := memory.Cached(k1.Lowered, k1.Launch).Total.TMA
	b := memory.Cached(k2.Lowered, k2.Launch).Total.TMA
	if a.Bytes != 2*(64*32*2+16*8*4) || b.Bytes != 2*(64*16*2+16*8*4) {
		t.Errorf("cached TMA bytes %d and %d, want %d and %d", a.Bytes, b.Bytes, 2*(64*32*2+16*8*4), 2*(64*16*2+16*8*4))
	}
}
