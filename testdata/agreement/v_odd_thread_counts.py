# Variation: 96- and 160-thread CTAs (whole warps, not powers of two).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def t96(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (96, 32), "float16")
    B = T.match_buffer(B_ptr, (96, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([3])
    T.lane_id([32])
    T.thread_id([96])
    A_s = T.alloc_buffer((96, 32), "float16", scope="shared", layout=TileLayout(S[96, 32]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def t160(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (160, 8), "float32")
    B = T.match_buffer(B_ptr, (160, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([5])
    T.lane_id([32])
    T.thread_id([160])
    A_s = T.alloc_buffer((160, 8), "float32", scope="shared", layout=TileLayout(S[160, 8]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def e96(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (96, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([3])
    T.lane_id([32])
    T.thread_id([96])
    X_s = T.alloc_buffer((96, 16), "float16", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.sqrt(X_s[:, :], X_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])
