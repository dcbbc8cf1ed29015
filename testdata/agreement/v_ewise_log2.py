# Variation: log2 on a warp register fragment and on an fp32 shared tile.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def frag(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.log2(R[:, :], R[:, :])
    Tx.warp.copy(A[:, :], R[:, :])


@T.prim_func
def shared(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([8])
    T.lane_id([32])
    T.thread_id([256])
    X_s = T.alloc_buffer((32, 64), "float32", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.log2(X_s[:, :], X_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])
