"""Reduction: Tx.warp.sum over the lane axis (axes=0) of a laneid-sharded view whose 2x2 registers per lane sit at the sparse, permuted slots 0, 4, 2, 6 of 7 (the .local() views follow the storage layout; local variant, warp_reduce)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, laneid


@T.prim_func
def local_warp_shuffle_gapped(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 2, 2), "float32", layout=TileLayout(S[(32, 2, 2)]))
    B = T.match_buffer(B_ptr, (32, 2, 2), "float32", layout=TileLayout(S[(32, 2, 2)]))
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane_id = T.lane_id([32])
    src_local = T.alloc_buffer([7], "float32", scope="local")
    dst_local = T.alloc_buffer([7], "float32", scope="local")
    src_view = src_local.view(32, 2, 2, layout=TileLayout(S[(32, 2, 2):(1 @ laneid, 2, 4)]))
    dst_view = dst_local.view(2, 2, layout=TileLayout(S[(2, 2):(2, 4)] + R[32:1 @ laneid]))
    for i in T.serial(2):
        for j in T.serial(2):
            src_local[i * 2 + j * 4] = A[lane_id, i, j]
    Tx.warp.sum(dst_view, src_view, axes=0)
    for i in T.serial(2):
        for j in T.serial(2):
            B[lane_id, i, j] = dst_local[i * 2 + j * 4]
