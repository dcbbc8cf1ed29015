# Variation: exp2/log2/reciprocal/silu on fp32 shared tiles.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def f32math(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([8])
    T.lane_id([32])
    T.thread_id([256])
    X_s = T.alloc_buffer((32, 64), "float32", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.exp2(X_s[:, :], X_s[:, :])
    Tx.cta.reciprocal(X_s[:, :], X_s[:, :])
    Tx.cta.silu(X_s[:, :], X_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])
