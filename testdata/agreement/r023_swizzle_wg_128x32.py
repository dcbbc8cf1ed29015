# Row 23: warpgroup copy of 128x32 fp16 into a 128B-swizzled tile.
# agreement: row=23
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def swz_wg(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float16")
    B = T.match_buffer(B_ptr, (128, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 32), "float16", scope="shared", layout=ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[128, 32])))
    Tx.wg.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.wg.copy(B[:, :], A_s[:, :])
