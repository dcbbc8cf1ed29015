"""gemm mma.m16n8k*: more declines and edge cases at cta scope (4 warps): a 3-D A region, K of A and B
disagreeing (the reference asserts), a D fragment spread over laneid and warpid, a D/C region that
cuts a fragment (not sliceable) and one that selects a whole tile (lowers), alpha given as an int,
beta as an int 1 (lowers), and alpha as a folded constant expression."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid, warpid, wid_in_wg

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])
D2 = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])


@T.prim_func
def k1():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    A3 = T.alloc_buffer((2, 16, 16), "float16", scope="local", layout=TileLayout(S[(2, 2, 8, 2, 4, 2):(8, 2, 4 @ laneid, 4, 1 @ laneid, 1)]))
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    B8 = T.alloc_buffer((8, 8), "float16", scope="local", layout=TileLayout(S[(4, 2, 8):(1 @ laneid, 1, 4 @ laneid)]))
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    DW = T.alloc_buffer((16, 8), "float32", scope="local", layout=TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ warpid, 1)]))
    DD = T.alloc_buffer((16, 16), "float32", scope="local", layout=D2)
    Tx.cta.gemm(D, A3, B, D)
    Tx.cta.gemm(D, A, B8, D)
    Tx.cta.gemm(DW, A, B, DW)
    Tx.cta.gemm(DD[0:16, 4:12], A, B, DD[0:16, 4:12])
    Tx.cta.gemm(DD[0:16, 8:16], A, B, DD[0:16, 8:16])
    Tx.cta.gemm(D, A, B, D, alpha=2)
    Tx.cta.gemm(D, A, B, D, beta=1)
    Tx.cta.gemm(D, A, B, D, alpha=T.float32(1.0) + T.float32(1.0))
