# Variation: warp and warpgroup elementwise on shared tiles.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def warp(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    X_s = T.alloc_buffer((32, 16), "float16", scope="shared")
    Tx.warp.copy(X_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.reciprocal(X_s[:, :], X_s[:, :])
    Tx.warp.fill(X_s[:, :], T.float16(1.5))
    Tx.warp.copy(A[:, :], X_s[:, :])


@T.prim_func
def wg(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 16), "float32")
    B = T.match_buffer(B_ptr, (128, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    X_s = T.alloc_buffer((128, 16), "float32", scope="shared")
    Y_s = T.alloc_buffer((128, 16), "float32", scope="shared")
    Tx.wg.copy(X_s[:, :], A[:, :])
    Tx.wg.copy(Y_s[:, :], B[:, :])
    T.cuda.warpgroup_sync(8)
    Tx.wg.sub(X_s[:, :], X_s[:, :], Y_s[:, :])
    Tx.wg.maximum(X_s[:, :], X_s[:, :], Y_s[:, :])
    Tx.wg.copy(A[:, :], X_s[:, :])
