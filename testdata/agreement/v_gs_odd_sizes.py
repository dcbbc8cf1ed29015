# Variation: odd sizes: 7x9 at a warp and 3x100 at 128 threads fall back; one thread
# copies 5x7 int8 with scalar accesses.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def w7x9(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (7, 9), "float32")
    B = T.match_buffer(B_ptr, (7, 9), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((7, 9), "float32", scope="shared", layout=TileLayout(S[7, 9]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_s[:, :])


@T.prim_func
def c3x100(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (3, 100), "float16")
    B = T.match_buffer(B_ptr, (3, 100), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((3, 100), "float16", scope="shared", layout=TileLayout(S[3, 100]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def t5x7(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (5, 7), "int8")
    B = T.match_buffer(B_ptr, (5, 7), "int8")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((5, 7), "int8", scope="shared", layout=TileLayout(S[5, 7]))
    Tx.thread.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.thread.copy(B[:, :], A_s[:, :])
