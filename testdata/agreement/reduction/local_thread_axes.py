"""Reduction: thread-scope Tx.sum of a 3x4x5 local buffer over axes (0, 2) into 4 registers, and a max over the last axis with accum=True (local variant, serial loops)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def local_thread_axes(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (3, 4, 5), "float32", layout=TileLayout(S[(3, 4, 5)]))
    B = T.match_buffer(B_ptr, (4,), "float32", layout=TileLayout(S[4]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_local = T.alloc_buffer((3, 4, 5), "float32", scope="local")
    B_local = T.alloc_buffer((4,), "float32", scope="local")
    C_local = T.alloc_buffer((3, 4), "float32", scope="local")
    for i in T.serial(3):
        for j in T.serial(4):
            for k in T.serial(5):
                A_local[i, j, k] = A[i, j, k]
    for i in T.serial(3):
        for j in T.serial(4):
            C_local[i, j] = T.float32(0.5)
    Tx.sum(B_local[:], A_local[:, :, :], axes=(0, 2))
    Tx.max(C_local[:, :], A_local[:, :, :], axes=-1, accum=True)
    for j in T.serial(4):
        B[j] = B_local[j] + C_local[0, j] + C_local[2, j]
