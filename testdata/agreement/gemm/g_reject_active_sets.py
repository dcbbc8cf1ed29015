"""gemm mma.m16n8k*: active sets full_active_lanes rejects: a cluster-scope call (its intra set has the
CTA axis cta_id, which mma.sync cannot span), and cta-scope calls under a narrowed warp set
(warps 0-1, then warp 1 alone)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])


@T.prim_func
def clus():
    T.device_entry()
    bx = T.cta_id([2])
    rank = T.cta_id_in_cluster([2])
    warp = T.warp_id([4])
    lane = T.lane_id([32])
    T.thread_id([128])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    Tx.cluster.gemm(D, A, B, D)
    if warp < 2:
        Tx.cta.gemm(D, A, B, D)
    if warp == 1:
        Tx.cta.gemm(D, A, B, D)
