"""gemm mma.m16n8k*: fragments whose layouts also name warpid, issued at cta scope (4 warps):
each warp owns one 16-row M tile of a 64×8 D (M = 16*warp + 8*rM + g), so one Tx.cta.gemm is four
independent m16n8k16 tiles; and a gemm on sub-regions (rows 16:32 of 32-row A and D fragments),
whose register views start at the region's register offset."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid, warpid

B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])
D_W = TileLayout(S[(4, 2, 8, 4, 2):(1 @ warpid, 2, 4 @ laneid, 1 @ laneid, 1)])
A_W = TileLayout(S[(4, 2, 8, 2, 4, 2):(1 @ warpid, 2, 4 @ laneid, 4, 1 @ laneid, 1)])
# Two M tiles in one warp's registers: A [32, 16], D [32, 8].
A2 = TileLayout(S[(2, 2, 8, 2, 4, 2):(8, 2, 4 @ laneid, 4, 1 @ laneid, 1)])
D2 = TileLayout(S[(2, 2, 8, 4, 2):(4, 2, 4 @ laneid, 1 @ laneid, 1)])


@T.prim_func
def warp_m_tiles(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (64, 16), "float16")
    B_g = T.match_buffer(B_ptr, (16, 8), "float16")
    C_g = T.match_buffer(C_ptr, (64, 8), "float32")
    D_g = T.match_buffer(D_ptr, (64, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    warp = T.warp_id([4])
    lane = T.lane_id([32])
    T.thread_id([128])
    A = T.alloc_buffer((64, 16), "float16", scope="local", layout=A_W)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    C = T.alloc_buffer((64, 8), "float32", scope="local", layout=D_W)
    D = T.alloc_buffer((64, 8), "float32", scope="local", layout=D_W)
    A_reg = A.local(2, 2, 2)
    for rM, kHi, kp in T.grid(2, 2, 2):
        A_reg[rM, kHi, kp] = A_g[warp * 16 + rM * 8 + lane // 4, kHi * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(2, 2)
    for kHi, kp in T.grid(2, 2):
        B_reg[kHi, kp] = B_g[kHi * 8 + 2 * (lane % 4) + kp, lane // 4]
    C_reg = C.local(2, 2)
    for rM, rN in T.grid(2, 2):
        C_reg[rM, rN] = C_g[warp * 16 + rM * 8 + lane // 4, 2 * (lane % 4) + rN]
    Tx.cta.gemm(D, A, B, C, beta=1.0)
    D_reg = D.local(2, 2)
    for rM, rN in T.grid(2, 2):
        D_g[warp * 16 + rM * 8 + lane // 4, 2 * (lane % 4) + rN] = D_reg[rM, rN]


@T.prim_func
def sub_regions(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (32, 16), "bfloat16")
    B_g = T.match_buffer(B_ptr, (16, 8), "bfloat16")
    D_g = T.match_buffer(D_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((32, 16), "bfloat16", scope="local", layout=A2)
    B = T.alloc_buffer((16, 8), "bfloat16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((32, 8), "float32", scope="local", layout=D2)
    A_reg = A.local(2, 2, 2, 2)
    for mt, rM, kHi, kp in T.grid(2, 2, 2, 2):
        A_reg[mt, rM, kHi, kp] = A_g[mt * 16 + rM * 8 + lane // 4, kHi * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(2, 2)
    for kHi, kp in T.grid(2, 2):
        B_reg[kHi, kp] = B_g[kHi * 8 + 2 * (lane % 4) + kp, lane // 4]
    D_reg = D.local(2, 2, 2)
    for mt, rM, rN in T.grid(2, 2, 2):
        D_reg[mt, rM, rN] = D_g[mt * 16 + rM * 8 + lane // 4, 2 * (lane % 4) + rN]
    # Only the second M tile: D[16:32] = A[16:32] @ B + D[16:32]; D[0:16] keeps what was loaded.
    Tx.warp.gemm(D[16:32, 0:8], A[16:32, 0:16], B, D[16:32, 0:8], beta=1.0)
    for mt, rM, rN in T.grid(2, 2, 2):
        D_g[mt * 16 + rM * 8 + lane // 4, 2 * (lane % 4) + rN] = D_reg[mt, rM, rN]
