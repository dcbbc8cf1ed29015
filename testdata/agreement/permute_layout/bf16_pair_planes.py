"""16-bit elements: bfloat16 K-pairs packed two per 32-bit word (the MMA register order, strides (128, 1, 2))
split into two planes (strides (64, 512, 1)); each lane moves 32 elements (P=32), and every access of
both phases lands in its own bank."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def pair_planes(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 2, 64), "bfloat16", layout=TileLayout(S[(8, 2, 64):(128, 1, 2)]))
    B = T.match_buffer(B_ptr, (8, 2, 64), "bfloat16", layout=TileLayout(S[(8, 2, 64):(64, 512, 1)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B[0:8, 0:2, 0:64], A[0:8, 0:2, 0:64])
