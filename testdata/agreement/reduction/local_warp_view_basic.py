"""Reduction: Tx.warp.sum / max over purely-local axes of warp views (lane on dim 0, 4x8 registers per lane): all inner axes, the last axis, the middle axis with accum=True (local view variant, no shuffle)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid


@T.prim_func
def local_warp_view_basic(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 4, 8), "float32", layout=TileLayout(S[(32, 4, 8)]))
    B = T.match_buffer(B_ptr, (32, 13), "float32", layout=TileLayout(S[(32, 13)]))
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane_id = T.lane_id([32])
    acc = T.alloc_buffer((1, 4, 8), "float32", scope="local", layout=TileLayout(S[(1, 4, 8)]))
    r1 = T.alloc_buffer((1, 1, 1), "float32", scope="local", layout=TileLayout(S[(1, 1, 1)]))
    r2 = T.alloc_buffer((1, 4, 1), "float32", scope="local", layout=TileLayout(S[(1, 4, 1)]))
    r3 = T.alloc_buffer((1, 1, 8), "float32", scope="local", layout=TileLayout(S[(1, 1, 8)]))
    for i in T.serial(4):
        for j in T.serial(8):
            acc[0, i, j] = A[lane_id, i, j]
    for j in T.serial(8):
        r3[0, 0, j] = T.float32(0.25)
    acc_view = acc.view(32, 4, 8, layout=TileLayout(S[(32, 4, 8):(1 @ laneid, 8, 1)]))
    r1_view = r1.view(32, 1, 1, layout=TileLayout(S[(32, 1, 1):(1 @ laneid, 1, 1)]))
    r2_view = r2.view(32, 4, 1, layout=TileLayout(S[(32, 4, 1):(1 @ laneid, 1, 1)]))
    r3_view = r3.view(32, 1, 8, layout=TileLayout(S[(32, 1, 8):(1 @ laneid, 8, 1)]))
    Tx.warp.sum(r1_view, acc_view, axes=(1, 2))
    Tx.warp.max(r2_view, acc_view, axes=-1)
    Tx.warp.sum(r3_view, acc_view, axes=1, accum=True)
    B[lane_id, 0] = r1[0, 0, 0]
    for i in T.serial(4):
        B[lane_id, 1 + i] = r2[0, i, 0]
    for j in T.serial(8):
        B[lane_id, 5 + j] = r3[0, 0, j]
