"""Reduction: Tx.cta.sum of a 4x8 shared tile over its last axis, 32 threads (shared variant, groups of 8 lanes, 3 shuffle steps)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_cta_sum_last(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8)]))
    B = T.match_buffer(B_ptr, (4,), "float32", layout=TileLayout(S[4]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_smem = T.alloc_buffer((4, 8), "float32", scope="shared", layout=TileLayout(S[(4, 8)]))
    B_smem = T.alloc_buffer((4,), "float32", scope="shared", layout=TileLayout(S[4]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.sum(B_smem[:], A_smem[:, :], axes=-1)
    Tx.cta.copy(B[:], B_smem[:])
