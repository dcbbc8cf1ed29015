"""Reduction: Tx.warp.min without thread_reduce (per-thread partial row minima), then an in-place Tx.warp.min(red, red, thread_reduce=True) that only shuffles (local view variant, in-place path), float16."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid


@T.prim_func
def local_warp_wgmma_two_step(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 128), "float16", layout=TileLayout(S[(16, 128)]))
    B = T.match_buffer(B_ptr, (16, 4), "float16", layout=TileLayout(S[(16, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane_id = T.lane_id([32])
    atom = T.TileLayout(T.S[(1, 2):(2, 1)])
    warp_layout = T.TileLayout(T.S[(8, 4):(4 @ laneid, 1 @ laneid)])
    warp_atom = atom.tile(warp_layout, (8, 4), (1, 2))
    tile = T.TileLayout(T.S[(2, 16):(1, 2)])
    acc_layout = warp_atom.tile(tile, (2, 16), (8, 8))
    acc = T.alloc_buffer([2, 32], "float16", scope="local", layout=atom.tile(tile, (2, 16), (1, 2)))
    red_atom = T.TileLayout(T.S[(1, 1):(1, 1)])
    red_warp_atom = red_atom.tile(warp_layout, (8, 4), (1, 1))
    red_tile = T.TileLayout(T.S[(2, 1):(1, 1)])
    red_layout = red_warp_atom.tile(red_tile, (2, 1), (8, 4))
    red = T.alloc_buffer([2], "float16", scope="local", layout=red_atom.tile(red_tile, (2, 1), (1, 1)))
    for i in T.serial(16):
        for j in T.unroll(2):
            for v in T.serial(2):
                acc[j, i * 2 + v] = A[j * 8 + lane_id // 4, i * 8 + lane_id % 4 * 2 + v]
    acc_view = acc.view(16, 128, layout=acc_layout)
    red_view = red.view(16, 4, layout=red_layout)
    Tx.warp.min(red_view, acc_view)
    Tx.warp.min(red_view, red_view, thread_reduce=True)
    for i in T.unroll(2):
        B[i * 8 + lane_id // 4, lane_id % 4] = red[i]
