# Row 42: a thread loads an 8x8 local tile from A[3:4, 8:16, 8:16] of 4x16x16 and
# stores it back (global offset 904).
# agreement: row=42
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def g2l_i8(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 16, 16), "int8")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    L = T.alloc_buffer((8, 8), "int8", scope="local", layout=TileLayout(S[8, 8]))
    Tx.copy(L[:, :], A[3:4, 8:16, 8:16])
    Tx.copy(A[3:4, 8:16, 8:16], L[:, :])


@T.prim_func
def g2l_f16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 16, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    L = T.alloc_buffer((8, 8), "float16", scope="local", layout=TileLayout(S[8, 8]))
    Tx.copy(L[:, :], A[3:4, 8:16, 8:16])
    Tx.copy(A[3:4, 8:16, 8:16], L[:, :])


@T.prim_func
def g2l_f32(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 16, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    L = T.alloc_buffer((8, 8), "float32", scope="local", layout=TileLayout(S[8, 8]))
    Tx.copy(L[:, :], A[3:4, 8:16, 8:16])
    Tx.copy(A[3:4, 8:16, 8:16], L[:, :])
