"""Reduction: thread-scope Tx.min with accum=True on shared buffers by thread 65 of 256 (shared variant, serial loops)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_thread_scope(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8)]))
    B = T.match_buffer(B_ptr, (4,), "float32", layout=TileLayout(S[4]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([256])
    A_smem = T.alloc_buffer((4, 8), "float32", scope="shared", layout=TileLayout(S[(4, 8)]))
    B_smem = T.alloc_buffer((4,), "float32", scope="shared", layout=TileLayout(S[4]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    Tx.cta.copy(B_smem[:], B[:])
    T.cuda.cta_sync()
    if tid == 65:
        Tx.min(B_smem[:], A_smem[:, :], axes=-1, accum=True)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:], B_smem[:])
