# Variation: register fragments whose register order is permuted or split over
# two thread iters.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def perm(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 8), "float32", scope="shared")
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 4, 2):(1 @ laneid, 1, 4)]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(R[:, :], A_s[:, :])
    Tx.warp.copy(A[:, :], R[:, :])


@T.prim_func
def two_iters(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256, 4), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([8])
    T.lane_id([32])
    T.thread_id([256])
    A_s = T.alloc_buffer((256, 4), "float16", scope="shared")
    R = T.alloc_buffer((256, 4), "float16", scope="local", layout=TileLayout(S[(8, 32, 4):(32 @ tx, 1 @ tx, 1)]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(R[:, :], A_s[:, :])
    Tx.cta.copy(A[:, :], R[:, :])


@T.prim_func
def odd_k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 3), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 3), "float32", scope="local", layout=TileLayout(S[(32, 3):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.copy(A[:, :], R[:, :])
