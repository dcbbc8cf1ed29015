"""gemm mma.m16n8k*: one m16n8k16 tile at warp scope, f16 inputs, f32 accumulation, beta=0
(C is D itself, as in TVM's numeric test; with beta=0 it is not read).

The fragments are filled and drained register by register through .local() views, whose dims
are the layouts' memory iters in order (lane = 4*g + t; A[M,K]: M = g + 8*rM,
K = 2*t + kp + 8*kHi; B[K,N]: N = g; C/D: M = g + 8*rM, N = 2*t + rN)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])


@T.prim_func
def gemm_k16(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (16, 16), "float16")
    B_g = T.match_buffer(B_ptr, (16, 8), "float16")
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    A_reg = A.local(2, 2, 2)
    for rM, kHi, kp in T.grid(2, 2, 2):
        A_reg[rM, kHi, kp] = A_g[lane // 4 + 8 * rM, 2 * (lane % 4) + kp + 8 * kHi]
    B_reg = B.local(2, 2)
    for kHi, kp in T.grid(2, 2):
        B_reg[kHi, kp] = B_g[2 * (lane % 4) + kp + 8 * kHi, lane // 4]
    Tx.warp.gemm(D, A, B, D, transpose_A=False, transpose_B=False, alpha=1.0, beta=0.0)
    D_reg = D.local(2, 2)
    for rM, rN in T.grid(2, 2):
        D_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[rM, rN]
