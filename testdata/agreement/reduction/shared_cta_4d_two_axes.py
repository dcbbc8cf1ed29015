"""Reduction: Tx.cta.min of an 8x16x2x22 shared tile over its last two axes (axes=(-2, -1)), 128 threads: 44 elements per group of 32 lanes, two serial steps per lane."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_cta_4d_two_axes(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 16, 2, 22), "float32", layout=TileLayout(S[(8, 16, 2, 22)]))
    B = T.match_buffer(B_ptr, (8, 16), "float32", layout=TileLayout(S[(8, 16)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_smem = T.alloc_buffer((8, 16, 2, 22), "float32", scope="shared", layout=TileLayout(S[(8, 16, 2, 22)]))
    B_smem = T.alloc_buffer((8, 16), "float32", scope="shared", layout=TileLayout(S[(8, 16)]))
    Tx.cta.copy(A_smem[:, :, :, :], A[:, :, :, :])
    T.cuda.cta_sync()
    Tx.cta.min(B_smem[:, :], A_smem[:, :, :, :], axes=(-2, -1))
    Tx.cta.copy(B[:, :], B_smem[:, :])
