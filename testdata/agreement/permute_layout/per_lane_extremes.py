"""Per-lane counts at both ends and a loop-variable window: a 32x32 uint32 transpose (P=32, k=5: the
whole lane id is XORed into the register slot), a 32-element move (P=1, no XOR), and column windows
[32*i, 32*i+32) of a (4, 64) tile in a loop (P=4, k=2)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def transpose_32x32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "uint32", layout=TileLayout(S[(32, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (32, 32), "uint32", layout=TileLayout(S[(32, 32):(1, 32)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)


@T.prim_func
def one_per_lane(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 16), "float32", layout=TileLayout(S[(2, 16):(16, 1)]))
    B = T.match_buffer(B_ptr, (2, 16), "float32", layout=TileLayout(S[(2, 16):(1, 2)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)


@T.prim_func
def loop_windows(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 64), "float32", layout=TileLayout(S[(4, 64):(64, 1)]))
    B = T.match_buffer(B_ptr, (4, 64), "float32", layout=TileLayout(S[(4, 64):(1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    for i in T.serial(0, 2):
        Tx.warp.permute_layout(B[0:4, i * 32:i * 32 + 32], A[0:4, i * 32:i * 32 + 32])
