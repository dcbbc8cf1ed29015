"""Reduction: Tx.warp.min from a laneid-sharded view to a view replicated over 8 lanes (lane = 8*g + r, stride 1 replica of 8): T.cuda.warp_reduce over groups of 8 lanes (local variant, partial-warp shuffle)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, laneid


@T.prim_func
def local_warp_shuffle_partial(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "float32", layout=TileLayout(S[32]))
    B = T.match_buffer(B_ptr, (32,), "float32", layout=TileLayout(S[32]))
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane_id = T.lane_id([32])
    src = T.alloc_buffer([1], "float32", scope="local")
    dst = T.alloc_buffer([1], "float32", scope="local")
    src[0] = A[lane_id]
    src_view = src.view(4, 8, layout=TileLayout(S[(4, 8):(8 @ laneid, 1 @ laneid)]))
    dst_view = dst.view(4, layout=TileLayout(S[4:8 @ laneid] + R[8:1 @ laneid]))
    Tx.warp.min(dst_view, src_view)
    B[lane_id] = dst[0]
