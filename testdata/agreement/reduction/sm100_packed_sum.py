"""Reduction: thread-scope Tx.sum of 100 float32 registers into one on sm_100a: packed_add_sum (add.rn.ftz.f32x2 over chunks of 8, a scalar tail of 4), with and without accum."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def sm100_packed_sum(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (100,), "float32", layout=TileLayout(S[100]))
    B = T.match_buffer(B_ptr, (2,), "float32", layout=TileLayout(S[2]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_local = T.alloc_buffer((100,), "float32", scope="local")
    B_local = T.alloc_buffer((1,), "float32", scope="local")
    C_local = T.alloc_buffer((1,), "float32", scope="local")
    for i in T.serial(100):
        A_local[i] = A[i]
    C_local[0] = T.float32(0.5)
    Tx.sum(B_local[:], A_local[:])
    Tx.sum(C_local[:], A_local[0:64], accum=True)
    B[0] = B_local[0]
    B[1] = C_local[0]
