# Variation: fallback elections in narrowed scopes: warpgroup 1, lanes [16, 32),
# warp 3.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def elect(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([2])
    T.warp_id_in_wg([4])
    wid = T.warp_id([8])
    lane = T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([256])
    A_s = T.alloc_buffer((4, 6), "float32", scope="shared")
    if wg == 1:
        Tx.wg.copy(A_s[:, :], A[:, :])
    if 16 <= lane:
        Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    if wid == 3:
        Tx.cta.copy(A[:, :], A_s[:, :])
