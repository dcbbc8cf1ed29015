"""Reduction: Tx.warp.sum and Tx.warp.max from a laneid-sharded view to a laneid-replicated one (4 registers per lane), reducing the lane axis (axes=0): the shard->replica pattern lowers to T.cuda.warp_reduce over 32 lanes (local variant)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, laneid


@T.prim_func
def local_warp_shuffle_replica(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32", layout=TileLayout(S[128]))
    B = T.match_buffer(B_ptr, (32, 8), "float32", layout=TileLayout(S[(32, 8)]))
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane_id = T.lane_id([32])
    src = T.alloc_buffer([4], "float32", scope="local")
    dst = T.alloc_buffer([4], "float32", scope="local")
    dst2 = T.alloc_buffer([4], "float32", scope="local")
    for i in T.serial(4):
        src[i] = A[lane_id * 4 + i]
    src_view = src.view(32, 4, layout=TileLayout(S[(32, 4):(1 @ laneid, 1)]))
    dst_view = dst.view(4, layout=TileLayout(S[4:1] + R[32:1 @ laneid]))
    dst2_view = dst2.view(4, layout=TileLayout(S[4:1] + R[32:1 @ laneid]))
    Tx.warp.sum(dst_view, src_view, axes=0)
    Tx.warp.max(dst2_view, src_view, axes=0)
    for i in T.serial(4):
        B[lane_id, i] = dst[i]
        B[lane_id, 4 + i] = dst2[i]
