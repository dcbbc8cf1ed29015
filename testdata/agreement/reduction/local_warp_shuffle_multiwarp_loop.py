"""Reduction: a loop of intra-warp then cross-warp sums with the laneid shard->replica pattern (4 warps; Tx.warp.sum per warp, partials through shared memory, warp 0 reduces them under `if`), as a CTA-wide sum is written by hand (local variant, warp_reduce)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, laneid


@T.prim_func
def local_warp_shuffle_multiwarp_loop(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (3, 128), "float32", layout=TileLayout(S[(3, 128)]))
    B = T.match_buffer(B_ptr, (3,), "float32", layout=TileLayout(S[3]))
    T.device_entry()
    T.cta_id([1])
    ty = T.warp_id([4])
    tx = T.lane_id([32])
    sum_smem = T.alloc_buffer((4,), "float32", scope="shared", layout=TileLayout(S[4]))
    partial = T.alloc_buffer([1], "float32", scope="local")
    result = T.alloc_buffer([1], "float32", scope="local")
    cross = T.alloc_buffer([1], "float32", scope="local")
    cross_res = T.alloc_buffer([1], "float32", scope="local")
    for it in T.serial(3):
        partial[0] = A[it, ty * 32 + tx]
        src_v = partial.view(32, layout=TileLayout(S[32:1 @ laneid]))
        dst_v = result.view(1, layout=TileLayout(S[1:1] + R[32:1 @ laneid]))
        Tx.warp.sum(dst_v, src_v)
        if tx == 0:
            sum_smem[ty] = result[0]
        T.cuda.cta_sync()
        if ty == 0:
            if tx < 4:
                cross[0] = sum_smem[tx]
            else:
                cross[0] = T.float32(0)
            cs = cross.view(32, layout=TileLayout(S[32:1 @ laneid]))
            cd = cross_res.view(1, layout=TileLayout(S[1:1] + R[32:1 @ laneid]))
            Tx.warp.sum(cd, cs)
            if tx == 0:
                B[it] = cross_res[0]
        T.cuda.cta_sync()
