"""Reduction: on sm_100a a thread-scope Tx.sum of a 2-D float32 register tile, and a float16 Tx.max of 16 registers, fall back to the local variant (the packed variants need a 1-D float32 src)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def sm100_multi_dim_local(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8)]))
    B = T.match_buffer(B_ptr, (4,), "float32", layout=TileLayout(S[4]))
    C = T.match_buffer(C_ptr, (16,), "float16", layout=TileLayout(S[16]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_local = T.alloc_buffer((4, 8), "float32", scope="local")
    B_local = T.alloc_buffer((4,), "float32", scope="local")
    C_local = T.alloc_buffer((16,), "float16", scope="local")
    D_local = T.alloc_buffer((1,), "float16", scope="local")
    for i in T.serial(4):
        for j in T.serial(8):
            A_local[i, j] = A[i, j]
    for i in T.serial(16):
        C_local[i] = C[i]
    Tx.sum(B_local[:], A_local[:, :], axes=-1)
    Tx.max(D_local[:], C_local[:])
    for i in T.serial(4):
        B[i] = B_local[i]
    C[0] = D_local[0]
