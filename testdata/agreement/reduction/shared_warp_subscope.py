"""Reduction: Tx.warp.sum with accum=True of a 4x8 shared tile by warp 5 of a 256-thread CTA (shared variant, tid % 32, __syncwarp at the end)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_warp_subscope(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8)]))
    B = T.match_buffer(B_ptr, (4,), "float32", layout=TileLayout(S[4]))
    T.device_entry()
    warp_id = T.warp_id([8])
    T.cta_id([1])
    T.thread_id([256])
    A_smem = T.alloc_buffer((4, 8), "float32", scope="shared", layout=TileLayout(S[(4, 8)]))
    B_smem = T.alloc_buffer((4,), "float32", scope="shared", layout=TileLayout(S[4]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    Tx.cta.copy(B_smem[:], B[:])
    T.cuda.cta_sync()
    if warp_id == 5:
        Tx.warp.sum(B_smem[:], A_smem[:, :], axes=-1, accum=True)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:], B_smem[:])
