# Variation: 256 threads each hold 4 fp32 registers.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def k4(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256, 4), "float32")
    B = T.match_buffer(B_ptr, (256, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([8])
    T.lane_id([32])
    T.thread_id([256])
    A_s = T.alloc_buffer((256, 4), "float32", scope="shared", layout=TileLayout(S[256, 4]))
    R = T.alloc_buffer((256, 4), "float32", scope="local", layout=TileLayout(S[(256, 4):(1 @ tx, 1)]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(R[:, :], A_s[:, :])
    Tx.cta.copy(A_s[:, :], R[:, :])
    Tx.cta.copy(R[:, :], A[:, :])
    Tx.cta.copy(B[:, :], R[:, :])
