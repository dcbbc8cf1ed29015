"""Reduction: Tx.warp.min over a sliced warp view (columns 16:32 of 64 registers per lane) into one register per lane (local view variant, region start in the local index)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid


@T.prim_func
def local_warp_view_sliced(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 64), "float32", layout=TileLayout(S[(32, 64)]))
    B = T.match_buffer(B_ptr, (32,), "float32", layout=TileLayout(S[32]))
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane_id = T.lane_id([32])
    acc = T.alloc_buffer((1, 64), "float32", scope="local", layout=TileLayout(S[(1, 64)]))
    red = T.alloc_buffer((1, 1), "float32", scope="local", layout=TileLayout(S[(1, 1)]))
    for i in T.serial(64):
        acc[0, i] = A[lane_id, i]
    acc_view = acc.view(32, 64, layout=TileLayout(S[(32, 64):(1 @ laneid, 1)]))
    red_view = red.view(32, 1, layout=TileLayout(S[(32, 1):(1 @ laneid, 1)]))
    Tx.warp.min(red_view, acc_view[:, 16:32], axes=-1)
    B[lane_id] = red[0, 0]
