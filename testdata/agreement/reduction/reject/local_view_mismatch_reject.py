"""Reduction rejection: Tx.warp.sum whose dst view keeps the reduced registers (dst 32x8 for a 32x4x8 src reduced over axis 1): the local variant finds dst's layout is not src's with the reduce dim dropped."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid


@T.prim_func
def reject_local_view_mismatch(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 4, 8), "float32", layout=TileLayout(S[(32, 4, 8)]))
    B = T.match_buffer(B_ptr, (32, 4), "float32", layout=TileLayout(S[(32, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane_id = T.lane_id([32])
    acc = T.alloc_buffer((1, 4, 8), "float32", scope="local", layout=TileLayout(S[(1, 4, 8)]))
    red = T.alloc_buffer((1, 4, 1), "float32", scope="local", layout=TileLayout(S[(1, 4, 1)]))
    for i in T.serial(4):
        for j in T.serial(8):
            acc[0, i, j] = A[lane_id, i, j]
    acc_view = acc.view(32, 4, 8, layout=TileLayout(S[(32, 4, 8):(1 @ laneid, 8, 1)]))
    red_view = red.view(32, 4, 1, layout=TileLayout(S[(32, 4, 1):(1 @ laneid, 1, 1)]))
    Tx.warp.sum(red_view, acc_view, axes=1)
    for i in T.serial(4):
        B[lane_id, i] = red[0, i, 0]
