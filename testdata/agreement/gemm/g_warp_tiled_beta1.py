"""gemm mma.m16n8k*: warp scope, multi-tile fragments (Mt×Nt×Kt grids of m16n8k16 tiles built
with tile_to), D = A·B + C (beta=1: the accumulators start from C), f16 and bf16 inputs.

Register views follow the layouts' memory iters: A = [mt, rM, kt, kHi, kp], B = [kt, kHi, kp, nt],
C/D = [mt, rM, nt, rN]; lane owns g = lane // 4, t = lane % 4."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)]).tile_to([16, 16], [16, 8])
B_FRAG = TileLayout(S[(4, 2, 8):(1 @ laneid, 1, 4 @ laneid)]).tile_to([16, 8], [8, 8])

# Mt = Nt = Kt = 2: M = 32, N = 16, K = 32.
D_L = D_FRAG.tile_to([32, 16], [16, 8])
A_L = A_FRAG.tile_to([32, 32], [16, 16])
B_L = B_FRAG.tile_to([32, 16], [16, 8])


@T.prim_func
def tiled_f16(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (32, 32), "float16")
    B_g = T.match_buffer(B_ptr, (32, 16), "float16")
    C_g = T.match_buffer(C_ptr, (32, 16), "float32")
    D_g = T.match_buffer(D_ptr, (32, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((32, 32), "float16", scope="local", layout=A_L)
    B = T.alloc_buffer((32, 16), "float16", scope="local", layout=B_L)
    C = T.alloc_buffer((32, 16), "float32", scope="local", layout=D_L)
    D = T.alloc_buffer((32, 16), "float32", scope="local", layout=D_L)
    A_reg = A.local(2, 2, 2, 2, 2)
    for mt, rM, kt, kHi, kp in T.grid(2, 2, 2, 2, 2):
        A_reg[mt, rM, kt, kHi, kp] = A_g[mt * 16 + lane // 4 + 8 * rM, kt * 16 + kHi * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(2, 2, 2, 2)
    for kt, kHi, kp, nt in T.grid(2, 2, 2, 2):
        B_reg[kt, kHi, kp, nt] = B_g[kt * 16 + kHi * 8 + 2 * (lane % 4) + kp, nt * 8 + lane // 4]
    C_reg = C.local(2, 2, 2, 2)
    for mt, rM, nt, rN in T.grid(2, 2, 2, 2):
        C_reg[mt, rM, nt, rN] = C_g[mt * 16 + lane // 4 + 8 * rM, nt * 8 + 2 * (lane % 4) + rN]
    Tx.warp.gemm(D, A, B, C, transpose_A=False, transpose_B=False, alpha=1.0, beta=1.0)
    D_reg = D.local(2, 2, 2, 2)
    for mt, rM, nt, rN in T.grid(2, 2, 2, 2):
        D_g[mt * 16 + lane // 4 + 8 * rM, nt * 8 + 2 * (lane % 4) + rN] = D_reg[mt, rM, nt, rN]


# Mt = 4, Nt = 1, Kt = 1: M = 64 (bf16), accumulating into D itself (C is D).
D_L64 = D_FRAG.tile_to([64, 8], [16, 8])
A_L64 = A_FRAG.tile_to([64, 16], [16, 16])


@T.prim_func
def m64_bf16(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (64, 16), "bfloat16")
    B_g = T.match_buffer(B_ptr, (16, 8), "bfloat16")
    D_g = T.match_buffer(D_ptr, (64, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((64, 16), "bfloat16", scope="local", layout=A_L64)
    B = T.alloc_buffer((16, 8), "bfloat16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((64, 8), "float32", scope="local", layout=D_L64)
    A_reg = A.local(4, 2, 2, 2)
    for mt, rM, kHi, kp in T.grid(4, 2, 2, 2):
        A_reg[mt, rM, kHi, kp] = A_g[mt * 16 + lane // 4 + 8 * rM, kHi * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(2, 2)
    for kHi, kp in T.grid(2, 2):
        B_reg[kHi, kp] = B_g[kHi * 8 + 2 * (lane % 4) + kp, lane // 4]
    D_reg = D.local(4, 2, 2)
    for mt, rM, rN in T.grid(4, 2, 2):
        D_reg[mt, rM, rN] = D_g[mt * 16 + lane // 4 + 8 * rM, 2 * (lane % 4) + rN]
    Tx.warp.gemm(D, A, B, D, beta=1.0)
    for mt, rM, rN in T.grid(4, 2, 2):
        D_g[mt * 16 + lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[mt, rM, rN]
