# Variation: ldmatrix/stmatrix between a register fragment and shared column
# blocks chosen by a loop variable (row-major and 128B-swizzled tiles).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def cols(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((16, 64), "float16", scope="shared")
    a = T.alloc_buffer((16, 32), "float16", scope="local", layout=TileLayout(S[(2, 8, 4, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    for j in range(2):
        Tx.warp.copy(a[:, :], A_s[:, j * 32:j * 32 + 32])
        Tx.warp.copy(A_s[:, j * 32:j * 32 + 32], a[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(A[:, :], A_s[:, :])


@T.prim_func
def cols_swz(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((16, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (16, 64)))
    a = T.alloc_buffer((16, 16), "float16", scope="local", layout=TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    for j in range(4):
        Tx.warp.copy(a[:, :], A_s[:, j * 16:j * 16 + 16])
        Tx.warp.copy(A_s[:, j * 16:j * 16 + 16], a[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(A[:, :], A_s[:, :])
