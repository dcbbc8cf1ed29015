"""Constant region offsets: the second 4x32 half of an (8, 32) tile in both buffers (the slice folds the
offset into the layout, the buffer index keeps the start), plus a (2, 64) column window [32:64)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def halves(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 32), "uint32", layout=TileLayout(S[(8, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (8, 32), "uint32", layout=TileLayout(S[(2, 4, 32):(128, 1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B[4:8, 0:32], A[4:8, 0:32])


@T.prim_func
def window(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 64), "float32", layout=TileLayout(S[(2, 64):(64, 1)]))
    B = T.match_buffer(B_ptr, (2, 64), "float32", layout=TileLayout(S[(2, 64):(1, 2)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B[0:2, 32:64], A[0:2, 32:64])
