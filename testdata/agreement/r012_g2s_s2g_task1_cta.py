# Row 12: A[32:64, 32:64] of a 64x64 global <-> shared 32x32 (offset 2080).
# agreement: row=12
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def task1_i8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "int8")
    B = T.match_buffer(B_ptr, (64, 64), "int8")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "int8", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.cta.copy(A_s[:, :], A[32:64, 32:64])
    T.cuda.cta_sync()
    Tx.cta.copy(B[32:64, 32:64], A_s[:, :])


@T.prim_func
def task1_f16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.cta.copy(A_s[:, :], A[32:64, 32:64])
    T.cuda.cta_sync()
    Tx.cta.copy(B[32:64, 32:64], A_s[:, :])


@T.prim_func
def task1_f32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    B = T.match_buffer(B_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.cta.copy(A_s[:, :], A[32:64, 32:64])
    T.cuda.cta_sync()
    Tx.cta.copy(B[32:64, 32:64], A_s[:, :])
