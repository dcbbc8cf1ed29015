"""Scale-factor transpose with BLK_SFA=256 (two 128-blocks per stage, float32): iteration extents
[2, 4, 32], P=8 per lane, the same shift-3 XOR handles the high block."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def sf_transpose_256(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 2, 4, 32), "float32", layout=TileLayout(S[(2, 2, 4, 32):(256, 128, 32, 1)]))
    B = T.match_buffer(B_ptr, (2, 2, 4, 32), "float32", layout=TileLayout(S[(2, 2, 4, 32):(256, 128, 1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    for s in T.serial(0, 2):
        Tx.warp.permute_layout(B[s, 0:2, 0:4, 0:32], A[s, 0:2, 0:4, 0:32])
