"""Generic linear-to-column-major transposes (TVM test_generic_transpose): (8, 32) float32 with P=8 and
(16, 32) int32 with P=16 per lane, whole buffers passed without a region."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def transpose_8x32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 32), "float32", layout=TileLayout(S[(8, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (8, 32), "float32", layout=TileLayout(S[(8, 32):(1, 8)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)


@T.prim_func
def transpose_16x32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 32), "int32", layout=TileLayout(S[(16, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (16, 32), "int32", layout=TileLayout(S[(16, 32):(1, 16)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)
