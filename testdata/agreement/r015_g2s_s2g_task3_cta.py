# Row 15: A[0:8, 0:8] of 16x16 <-> shared 8x8: 64 elements over 32 threads.
# agreement: row=15
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def task3_i8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), "int8")
    B = T.match_buffer(B_ptr, (16, 16), "int8")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((8, 8), "int8", scope="shared", layout=TileLayout(S[8, 8]))
    Tx.cta.copy(A_s[:, :], A[0:8, 0:8])
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:8, 0:8], A_s[:, :])


@T.prim_func
def task3_f16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), "float16")
    B = T.match_buffer(B_ptr, (16, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((8, 8), "float16", scope="shared", layout=TileLayout(S[8, 8]))
    Tx.cta.copy(A_s[:, :], A[0:8, 0:8])
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:8, 0:8], A_s[:, :])


@T.prim_func
def task3_f32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), "float32")
    B = T.match_buffer(B_ptr, (16, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((8, 8), "float32", scope="shared", layout=TileLayout(S[8, 8]))
    Tx.cta.copy(A_s[:, :], A[0:8, 0:8])
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:8, 0:8], A_s[:, :])
