"""Reduction: Tx.warp.sum with thread_reduce=True and accum=True on float16 MMA fragments in 2 warpgroups of 4 warps (256 threads): every warp reduces its own 16 rows (local view variant, save-accum path)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid


@T.prim_func
def local_warp_wgmma_multiwarp(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16", layout=TileLayout(S[(128, 64)]))
    B = T.match_buffer(B_ptr, (128, 4), "float16", layout=TileLayout(S[(128, 4)]))
    T.device_entry()
    T.cta_id([1])
    wg_id = T.warpgroup_id([2])
    warp_id_in_wg = T.warp_id_in_wg([4])
    lane_id = T.lane_id([32])
    atom = T.TileLayout(T.S[(1, 2):(2, 1)])
    warp_layout = T.TileLayout(T.S[(8, 4):(4 @ laneid, 1 @ laneid)])
    warp_atom = atom.tile(warp_layout, (8, 4), (1, 2))
    tile = T.TileLayout(T.S[(2, 8):(1, 2)])
    acc_layout = warp_atom.tile(tile, (2, 8), (8, 8))
    acc = T.alloc_buffer([2, 16], "float16", scope="local", layout=atom.tile(tile, (2, 8), (1, 2)))
    red_atom = T.TileLayout(T.S[(1, 1):(1, 1)])
    red_warp_atom = red_atom.tile(warp_layout, (8, 4), (1, 1))
    red_tile = T.TileLayout(T.S[(2, 1):(1, 1)])
    red_layout = red_warp_atom.tile(red_tile, (2, 1), (8, 4))
    red = T.alloc_buffer([2], "float16", scope="local", layout=red_atom.tile(red_tile, (2, 1), (1, 1)))
    row0 = wg_id * 64 + warp_id_in_wg * 16
    for i in T.serial(8):
        for j in T.unroll(2):
            for v in T.serial(2):
                acc[j, i * 2 + v] = A[row0 + j * 8 + lane_id // 4, i * 8 + lane_id % 4 * 2 + v]
    for i in T.unroll(2):
        red[i] = B[row0 + i * 8 + lane_id // 4, lane_id % 4]
    acc_view = acc.view(16, 64, layout=acc_layout)
    red_view = red.view(16, 4, layout=red_layout)
    Tx.warp.sum(red_view, acc_view, thread_reduce=True, accum=True)
    for i in T.unroll(2):
        B[row0 + i * 8 + lane_id // 4, lane_id % 4] = red[i]
