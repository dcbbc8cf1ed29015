# The forced-width copies vec_16b..vec_128b (0.26+): one access of exactly N
# bytes per thread, global -> local with the load cache hints (cache="nc",
# l1_evict, l2_evict, prefetch_size) and back; written with the 0.26 names,
# so 0.25 must refuse every one of them ("no variant named ... is registered").
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def w16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "uint16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    L = T.alloc_buffer((1,), "uint16", scope="local")
    Tx.copy(L[:], A[tid:tid + 1], dispatch="vec_16b")
    Tx.copy(A[tid + 32:tid + 33], L[:], dispatch="vec_16b")


@T.prim_func
def w32_nc(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    L = T.alloc_buffer((1,), "float32", scope="local")
    Tx.copy(L[:], A[tid:tid + 1], dispatch="vec_32b", cache="nc")
    Tx.copy(A[tid + 32:tid + 33], L[:], dispatch="vec_32b")


@T.prim_func
def w64_l1(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 4), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    L = T.alloc_buffer((4,), "float16", scope="local")
    Tx.copy(L[:], A[tid, 0:4], dispatch="vec_64b", l1_evict="L1::no_allocate")
    Tx.copy(A[tid, 0:4], L[:], dispatch="vec_64b")


@T.prim_func
def w128_l2(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    L = T.alloc_buffer((4,), "float32", scope="local")
    Tx.copy(L[:], A[tid, 0:4], dispatch="vec_128b", cache="nc", l2_evict="L2::evict_first",
            prefetch_size="L2::128B")
    Tx.copy(A[tid, 4:8], L[:], dispatch="vec_128b")


@T.prim_func
def w128_shared(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    A_s = T.alloc_buffer((32, 8), "bfloat16", scope="shared")
    L = T.alloc_buffer((8,), "bfloat16", scope="local")
    Tx.copy(A_s[tid, :], A[tid, :], dispatch="vec_128b", prefetch_size="L2::256B")
    Tx.copy(L[:], A_s[tid, :], dispatch="vec_128b")
    Tx.copy(A[tid, :], L[:], dispatch="vec_128b")


@T.prim_func
def w_reject(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    A_s = T.alloc_buffer((32, 8), "float32", scope="shared")
    L = T.alloc_buffer((8,), "float32", scope="local")
    Tx.copy(L[0:4], A_s[tid, 0:4], dispatch="vec_128b", cache="nc")
    Tx.copy(L[0:2], A[tid, 0:2], dispatch="vec_128b")
    Tx.copy(L[0:4], A[tid, 0:4], dispatch="vec_128b", cache="ca")
    Tx.copy(L[0:1], A[tid, 0:1], dispatch="vec_32b", l2_evict="L2::evict_last")
