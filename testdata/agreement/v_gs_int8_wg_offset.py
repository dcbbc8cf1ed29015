# Variation: int8 warpgroup copy of rows [64, 128) of a 256x128 tensor.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def i8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256, 128), "int8")
    B = T.match_buffer(B_ptr, (256, 128), "int8")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 128), "int8", scope="shared", layout=TileLayout(S[64, 128]))
    Tx.wg.copy(A_s[:, :], A[64:128, :])
    T.cuda.cta_sync()
    Tx.wg.copy(B[64:128, :], A_s[:, :])
