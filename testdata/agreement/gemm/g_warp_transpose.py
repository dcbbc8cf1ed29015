"""gemm mma.m16n8k*: transposed operands at warp scope. transpose_A=True takes A as a [K, M]
buffer, transpose_B=True takes B as [N, K]; the fragments hold the same per-lane elements with the
buffer's two axes swapped (TVM's _transpose_frag), and the same .row.col mma is issued.
One m16n8k16 tile with A transposed (f16), one with B transposed (bf16), and a 2×2×2 grid with
both transposed (f16)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])
# [K, M] and [N, K] orientations of the single tile.
A_KM = TileLayout(S[(2, 4, 2, 2, 8):(4, 1 @ laneid, 1, 2, 4 @ laneid)])
B_NK = TileLayout(S[(8, 2, 4, 2):(4 @ laneid, 2, 1 @ laneid, 1)])
# The 2×2×2 grid (M = 32, N = 16, K = 32): A as [K, M] = [32, 32], B as [N, K] = [16, 32].
A_KM2 = TileLayout(S[(4, 4, 2, 2, 2, 8):(4, 1 @ laneid, 1, 16, 2, 4 @ laneid)])
B_NK2 = TileLayout(S[(2, 8, 2, 2, 4, 2):(4, 4 @ laneid, 8, 2, 1 @ laneid, 1)])
D_L2 = TileLayout(S[(2, 2, 8, 2, 4, 2):(8, 2, 4 @ laneid, 4, 1 @ laneid, 1)])


@T.prim_func
def trans_a_f16(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (16, 16), "float16")  # [K, M]
    B_g = T.match_buffer(B_ptr, (16, 8), "float16")
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_KM)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    A_reg = A.local(2, 2, 2)
    for kHi, kp, rM in T.grid(2, 2, 2):
        A_reg[kHi, kp, rM] = A_g[kHi * 8 + 2 * (lane % 4) + kp, lane // 4 + 8 * rM]
    B_reg = B.local(2, 2)
    for kHi, kp in T.grid(2, 2):
        B_reg[kHi, kp] = B_g[kHi * 8 + 2 * (lane % 4) + kp, lane // 4]
    Tx.warp.gemm(D, A, B, D, transpose_A=True, transpose_B=False)
    D_reg = D.local(2, 2)
    for rM, rN in T.grid(2, 2):
        D_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[rM, rN]


@T.prim_func
def trans_b_bf16(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (16, 16), "bfloat16")
    B_g = T.match_buffer(B_ptr, (8, 16), "bfloat16")  # [N, K]
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 16), "bfloat16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((8, 16), "bfloat16", scope="local", layout=B_NK)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    A_reg = A.local(2, 2, 2)
    for rM, kHi, kp in T.grid(2, 2, 2):
        A_reg[rM, kHi, kp] = A_g[lane // 4 + 8 * rM, kHi * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(2, 2)
    for kHi, kp in T.grid(2, 2):
        B_reg[kHi, kp] = B_g[lane // 4, kHi * 8 + 2 * (lane % 4) + kp]
    Tx.warp.gemm(D, A, B, D, transpose_B=True)
    D_reg = D.local(2, 2)
    for rM, rN in T.grid(2, 2):
        D_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[rM, rN]


@T.prim_func
def trans_ab_grid_f16(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (32, 32), "float16")  # [K, M]
    B_g = T.match_buffer(B_ptr, (16, 32), "float16")  # [N, K]
    C_g = T.match_buffer(C_ptr, (32, 16), "float32")
    D_g = T.match_buffer(D_ptr, (32, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((32, 32), "float16", scope="local", layout=A_KM2)
    B = T.alloc_buffer((16, 32), "float16", scope="local", layout=B_NK2)
    C = T.alloc_buffer((32, 16), "float32", scope="local", layout=D_L2)
    D = T.alloc_buffer((32, 16), "float32", scope="local", layout=D_L2)
    A_reg = A.local(4, 2, 2, 2)
    for kq, kp, mt, rM in T.grid(4, 2, 2, 2):
        A_reg[kq, kp, mt, rM] = A_g[kq * 8 + 2 * (lane % 4) + kp, mt * 16 + rM * 8 + lane // 4]
    B_reg = B.local(2, 2, 2, 2)
    for nt, kt, kHi, kp in T.grid(2, 2, 2, 2):
        B_reg[nt, kt, kHi, kp] = B_g[nt * 8 + lane // 4, kt * 16 + kHi * 8 + 2 * (lane % 4) + kp]
    C_reg = C.local(2, 2, 2, 2)
    for mt, rM, nt, rN in T.grid(2, 2, 2, 2):
        C_reg[mt, rM, nt, rN] = C_g[mt * 16 + rM * 8 + lane // 4, nt * 8 + 2 * (lane % 4) + rN]
    Tx.warp.gemm(D, A, B, C, transpose_A=True, transpose_B=True, alpha=1.0, beta=1.0)
    D_reg = D.local(2, 2, 2, 2)
    for mt, rM, nt, rN in T.grid(2, 2, 2, 2):
        D_g[mt * 16 + rM * 8 + lane // 4, nt * 8 + 2 * (lane % 4) + rN] = D_reg[mt, rM, nt, rN]
