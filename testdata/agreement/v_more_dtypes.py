# Variation: int32, uint16 and float64 copies and an int32 add.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def i32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 16), "int32")
    B = T.match_buffer(B_ptr, (32, 16), "int32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 16), "int32", scope="shared", layout=TileLayout(S[32, 16]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_s[:, :])


@T.prim_func
def u16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 32), "uint16")
    B = T.match_buffer(B_ptr, (64, 32), "uint16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    A_s = T.alloc_buffer((64, 32), "uint16", scope="shared", layout=TileLayout(S[64, 32]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def f64(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), "float64")
    B = T.match_buffer(B_ptr, (16, 16), "float64")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((16, 16), "float64", scope="shared", layout=TileLayout(S[16, 16]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_s[:, :])


@T.prim_func
def i32_add(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "int32")
    B = T.match_buffer(B_ptr, (32, 32), "int32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    X_s = T.alloc_buffer((32, 32), "int32", scope="shared")
    Y_s = T.alloc_buffer((32, 32), "int32", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    Tx.cta.copy(Y_s[:, :], B[:, :])
    T.cuda.cta_sync()
    Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])
