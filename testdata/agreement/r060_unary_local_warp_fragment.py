# Row 60: reciprocal/exp/exp2 on a warp register fragment (no packed impl: scalar);
# log2 is in v_ewise_log2 (the reference release has no Tx.log2).
# agreement: row=60
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def frag_f32(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.reciprocal(R[:, :], R[:, :])
    Tx.warp.exp(R[:, :], R[:, :])
    Tx.warp.exp2(R[:, :], R[:, :])
    Tx.warp.copy(A[:, :], R[:, :])


@T.prim_func
def frag_f16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 8), "float16", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.reciprocal(R[:, :], R[:, :])
    Tx.warp.exp(R[:, :], R[:, :])
    Tx.warp.exp2(R[:, :], R[:, :])
    Tx.warp.copy(A[:, :], R[:, :])
