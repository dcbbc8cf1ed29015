"""Reduction: Tx.wg.max of a 4x8 shared tile by warpgroup 0 of a 256-thread CTA (shared variant, tid % 128, named barrier 8 for 128 threads)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_warpgroup_subscope(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8)]))
    B = T.match_buffer(B_ptr, (4,), "float32", layout=TileLayout(S[4]))
    T.device_entry()
    wg_id = T.warpgroup_id([2])
    T.cta_id([1])
    T.thread_id([256])
    A_smem = T.alloc_buffer((4, 8), "float32", scope="shared", layout=TileLayout(S[(4, 8)]))
    B_smem = T.alloc_buffer((4,), "float32", scope="shared", layout=TileLayout(S[4]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    if wg_id == 0:
        Tx.wg.max(B_smem[:], A_smem[:, :], axes=-1)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:], B_smem[:])
