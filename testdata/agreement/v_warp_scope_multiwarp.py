# Variation: warp-scope elementwise and copies in a 4-warp CTA, each warp on
# its own slice.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def per_warp(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    wid = T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 32), "float16", scope="shared")
    Tx.warp.copy(A_s[wid * 32:wid * 32 + 32, :], A[wid * 32:wid * 32 + 32, :])
    T.cuda.warp_sync()
    Tx.warp.sqrt(A_s[wid * 32:wid * 32 + 32, :], A_s[wid * 32:wid * 32 + 32, :])
    Tx.warp.copy(A[wid * 32:wid * 32 + 32, :], A_s[wid * 32:wid * 32 + 32, :])
