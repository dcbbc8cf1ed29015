# Row 11: the task-0 copy at thread scope (one thread moves the tile).
# agreement: row=11
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def task0_i8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "int8")
    B = T.match_buffer(B_ptr, (128, 32), "int8")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((128, 32), "int8", scope="shared", layout=TileLayout(S[128, 32]))
    Tx.thread.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.thread.copy(B[:, :], A_s[:, :])


@T.prim_func
def task0_e4m3(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float8_e4m3fn")
    B = T.match_buffer(B_ptr, (128, 32), "float8_e4m3fn")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((128, 32), "float8_e4m3fn", scope="shared", layout=TileLayout(S[128, 32]))
    Tx.thread.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.thread.copy(B[:, :], A_s[:, :])


@T.prim_func
def task0_f16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float16")
    B = T.match_buffer(B_ptr, (128, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((128, 32), "float16", scope="shared", layout=TileLayout(S[128, 32]))
    Tx.thread.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.thread.copy(B[:, :], A_s[:, :])


@T.prim_func
def task0_bf16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "bfloat16")
    B = T.match_buffer(B_ptr, (128, 32), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((128, 32), "bfloat16", scope="shared", layout=TileLayout(S[128, 32]))
    Tx.thread.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.thread.copy(B[:, :], A_s[:, :])


@T.prim_func
def task0_f32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float32")
    B = T.match_buffer(B_ptr, (128, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((128, 32), "float32", scope="shared", layout=TileLayout(S[128, 32]))
    Tx.thread.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.thread.copy(B[:, :], A_s[:, :])
