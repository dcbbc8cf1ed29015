# Row 13: the task-1 copy at thread scope.
# agreement: row=13
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
    T.thread_id([1])
    A_s = T.alloc_buffer((32, 32), "int8", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.thread.copy(A_s[:, :], A[32:64, 32:64])
    T.cuda.cta_sync()
    Tx.thread.copy(B[32:64, 32:64], A_s[:, :])


@T.prim_func
def task1_f16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.thread.copy(A_s[:, :], A[32:64, 32:64])
    T.cuda.cta_sync()
    Tx.thread.copy(B[32:64, 32:64], A_s[:, :])


@T.prim_func
def task1_f32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    B = T.match_buffer(B_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.thread.copy(A_s[:, :], A[32:64, 32:64])
    T.cuda.cta_sync()
    Tx.thread.copy(B[32:64, 32:64], A_s[:, :])
