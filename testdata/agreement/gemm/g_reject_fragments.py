"""gemm mma.m16n8k*: register layouts that tile M×K / K×N but not as the m16n8 fragments, each
declined with "no mma instruction fits": A with g and rM swapped (M = 2g + rM), A with the K pack
outside the lane's t, and B whose N lanes are not g = lane // 4."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])


@T.prim_func
def fragments_mismatch():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    A6 = T.alloc_buffer((16, 16), "float16", scope="local", layout=TileLayout(S[(8, 2, 2, 4, 2):(4 @ laneid, 2, 4, 1 @ laneid, 1)]))
    AK = T.alloc_buffer((16, 16), "float16", scope="local", layout=TileLayout(S[(2, 8, 4, 2, 2):(2, 4 @ laneid, 1 @ laneid, 4, 1)]))
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    BN = T.alloc_buffer((16, 8), "float16", scope="local", layout=TileLayout(S[(2, 4, 2, 2, 4):(2, 1 @ laneid, 1, 4 @ laneid, 8 @ laneid)]))
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    Tx.warp.gemm(D, A6, B, D)
    Tx.warp.gemm(D, AK, B, D)
    Tx.warp.gemm(D, A, BN, D)
