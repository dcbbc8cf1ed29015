# Row 58: warpgroup 1 of a 256-thread CTA zeroes a 128x8 fp16 tile.
# agreement: row=58
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def wg1(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 8), "float16")
    T.device_entry()
    T.cta_id([1])
    wg_id = T.warpgroup_id([2])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([256])
    G_s = T.alloc_buffer((128, 8), "float16", scope="shared")
    if wg_id == 1:
        Tx.wg.zero(G_s[:, :])
        Tx.wg.copy(A[:, :], G_s[:, :])
