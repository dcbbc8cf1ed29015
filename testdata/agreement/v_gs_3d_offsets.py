# Variation: a 3-D region with offsets in every dimension.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def off3d(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 16, 64), "float16")
    B = T.match_buffer(B_ptr, (4, 16, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((2, 8, 32), "float16", scope="shared", layout=TileLayout(S[2, 8, 32]))
    Tx.warp.copy(A_s[:, :, :], A[1:3, 4:12, 8:40])
    T.cuda.cta_sync()
    Tx.warp.copy(B[1:3, 4:12, 8:40], A_s[:, :, :])
