# Row 44: warpgroup registers S[(128,64):(1@tid_in_wg,1)] -> a 128B-swizzled 128x64
# fp16 tile and back.
# agreement: row=44
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def wg_swz(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 64), "float16", scope="shared", layout=ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[128, 64])))
    R = T.alloc_buffer((128, 64), "float16", scope="local", layout=TileLayout(S[(128, 64):(1 @ tid_in_wg, 1)]))
    Tx.wg.copy(R[:, :], A[:, :])
    Tx.wg.copy(A_s[:, :], R[:, :])
    T.cuda.warpgroup_sync(8)
    Tx.wg.copy(R[:, :], A_s[:, :])
    Tx.wg.copy(A[:, :], R[:, :])
