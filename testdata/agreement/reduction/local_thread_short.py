"""Reduction: thread-scope Tx.min of a 7-element local buffer into one register on sm_90a (local variant: the sm_100 packed variants need sm_100 and 8 elements)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def local_thread_short(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (7,), "float32", layout=TileLayout(S[7]))
    B = T.match_buffer(B_ptr, (1,), "float32", layout=TileLayout(S[1]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_local = T.alloc_buffer((7,), "float32", scope="local")
    B_local = T.alloc_buffer((1,), "float32", scope="local")
    for i in T.serial(7):
        A_local[i] = A[i]
    Tx.min(B_local[:], A_local[:])
    B[0] = B_local[0]
