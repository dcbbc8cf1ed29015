"""Shared-to-shared transpose (TVM test_shared_to_shared_uses_direct_ldst, float32): global -> linear smem
tile, permute into a transposed smem tile, copy out; P=4, k=2."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def s2s_transpose(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "float32", layout=TileLayout(S[(4, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (4, 32), "float32", layout=TileLayout(S[(4, 32):(1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    sA = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[(4, 32):(32, 1)]))
    sB = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[(4, 32):(1, 4)]))
    Tx.cta.copy(sA[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.permute_layout(sB[:, :], sA[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], sB[:, :])
