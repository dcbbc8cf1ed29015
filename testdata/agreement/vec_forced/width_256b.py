# vec_256b (0.26+): one 32-byte access per thread (ld/st .v8.u32, sm_100a),
# with and without the global-load hints; 0.25 refuses the name.
# agreement: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def w256(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    L = T.alloc_buffer((8,), "float32", scope="local")
    Tx.copy(L[:], A[tid, 0:8], dispatch="vec_256b")
    Tx.copy(A[tid, 8:16], L[:], dispatch="vec_256b")


@T.prim_func
def w256_hints(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    L = T.alloc_buffer((16,), "float16", scope="local")
    Tx.copy(L[:], A[tid, :], dispatch="vec_256b", cache="nc", l1_evict="L1::evict_last",
            l2_evict="L2::evict_first", prefetch_size="L2::256B")
    Tx.copy(A[tid, :], L[:], dispatch="vec_256b")
