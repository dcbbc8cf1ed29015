"""Scale-factor transpose of a blockwise FP8 GEMM (TVM test_sf_blockwise_transpose, BLK_SFA=128): per
pipeline stage a warp moves a 4x32 uint32 block from linear (32, 1) to transposed (1, 4) strides; P=4,
the write phase needs k=2 XOR bits (shift 3)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def sf_transpose_128(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 1, 4, 32), "uint32", layout=TileLayout(S[(2, 1, 4, 32):(128, 128, 32, 1)]))
    B = T.match_buffer(B_ptr, (2, 1, 4, 32), "uint32", layout=TileLayout(S[(2, 1, 4, 32):(128, 128, 1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    for s in T.serial(0, 2):
        Tx.warp.permute_layout(B[s, 0:1, 0:4, 0:32], A[s, 0:1, 0:4, 0:32])
