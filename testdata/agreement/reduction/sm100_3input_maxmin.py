"""Reduction: thread-scope Tx.max (17 registers, accum=True) and Tx.min (8 registers) on sm_100a: 3input_maxmin (three-input max.f32/min.f32 PTX, 4 partials)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def sm100_3input_maxmin(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "float32", layout=TileLayout(S[32]))
    B = T.match_buffer(B_ptr, (2,), "float32", layout=TileLayout(S[2]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_local = T.alloc_buffer((32,), "float32", scope="local")
    B_local = T.alloc_buffer((1,), "float32", scope="local")
    C_local = T.alloc_buffer((1,), "float32", scope="local")
    for i in T.serial(32):
        A_local[i] = A[i]
    B_local[0] = T.float32(0.5)
    Tx.max(B_local[:], A_local[3:20], accum=True)
    Tx.min(C_local[:], A_local[8:16])
    B[0] = B_local[0]
    B[1] = C_local[0]
