# Row 14: A[0:1, 0:32, 0:32] of 4x32x32 <-> shared 32x32 (unit dim dropped).
# agreement: row=14
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def task2_u8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32, 32), "uint8")
    B = T.match_buffer(B_ptr, (4, 32, 32), "uint8")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "uint8", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.cta.copy(A_s[:, :], A[0:1, 0:32, 0:32])
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:1, 0:32, 0:32], A_s[:, :])


@T.prim_func
def task2_bf16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32, 32), "bfloat16")
    B = T.match_buffer(B_ptr, (4, 32, 32), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "bfloat16", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.cta.copy(A_s[:, :], A[0:1, 0:32, 0:32])
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:1, 0:32, 0:32], A_s[:, :])


@T.prim_func
def task2_f32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32, 32), "float32")
    B = T.match_buffer(B_ptr, (4, 32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.cta.copy(A_s[:, :], A[0:1, 0:32, 0:32])
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:1, 0:32, 0:32], A_s[:, :])
