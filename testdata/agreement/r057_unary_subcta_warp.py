# Row 57: warp 5 of a 256-thread CTA zeroes a 32x8 fp16 tile.
# agreement: row=57
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def warp5(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([8])
    T.lane_id([32])
    T.thread_id([256])
    W_s = T.alloc_buffer((32, 8), "float16", scope="shared")
    if warp_id == 5:
        Tx.warp.zero(W_s[:, :])
        Tx.warp.copy(A[:, :], W_s[:, :])
