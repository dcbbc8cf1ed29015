# Variation: a warp copy inside `if wid == 1` keeps the fast path; cta copies inside
# `if tid < 64`, `if 0 <= tid and tid < 64` and `if wid < 2` are narrowed and fall back.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def warp1(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    wid = T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    if wid == 1:
        Tx.warp.copy(A_s[:, :], A[:, :])
        T.cuda.warp_sync()
        Tx.warp.copy(B[:, :], A_s[:, :])


@T.prim_func
def half_cta(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    if tid < 64:
        Tx.cta.copy(A_s[:, :], A[:, :])
        T.cuda.cta_sync()
        Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def half_cta_2sided(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    if 0 <= tid and tid < 64:
        Tx.cta.copy(A_s[:, :], A[:, :])
        T.cuda.cta_sync()
        Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def two_warps(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    wid = T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    if wid < 2:
        Tx.cta.copy(A_s[:, :], A[:, :])
        T.cuda.cta_sync()
        Tx.cta.copy(B[:, :], A_s[:, :])
