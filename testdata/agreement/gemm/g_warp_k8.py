"""gemm mma.m16n8k*: m16n8k8 (one high-K register group, kHi = 1) at warp scope: K = 24 (three
k8 steps, 16 does not divide it) in f16 with beta=0, and a 2×2×3 grid of k8 tiles in bf16
accumulating into C (beta=1). Register views follow the layouts' memory iters in order."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG_K8 = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
B_FRAG_K8 = TileLayout(S[(4, 2, 8):(1 @ laneid, 1, 4 @ laneid)])


@T.prim_func
def k24_f16(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (16, 24), "float16")
    B_g = T.match_buffer(B_ptr, (24, 8), "float16")
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 24), "float16", scope="local", layout=A_FRAG_K8.tile_to([16, 24], [16, 8]))
    B = T.alloc_buffer((24, 8), "float16", scope="local", layout=B_FRAG_K8.tile_to([24, 8], [8, 8]))
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    A_reg = A.local(2, 3, 2)
    for rM, kt, kp in T.grid(2, 3, 2):
        A_reg[rM, kt, kp] = A_g[lane // 4 + 8 * rM, kt * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(3, 2)
    for kt, kp in T.grid(3, 2):
        B_reg[kt, kp] = B_g[kt * 8 + 2 * (lane % 4) + kp, lane // 4]
    Tx.warp.gemm(D, A, B, D)
    D_reg = D.local(2, 2)
    for rM, rN in T.grid(2, 2):
        D_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[rM, rN]


@T.prim_func
def grid_k8_bf16(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (32, 24), "bfloat16")
    B_g = T.match_buffer(B_ptr, (24, 16), "bfloat16")
    C_g = T.match_buffer(C_ptr, (32, 16), "float32")
    D_g = T.match_buffer(D_ptr, (32, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((32, 24), "bfloat16", scope="local", layout=A_FRAG_K8.tile_to([32, 24], [16, 8]))
    B = T.alloc_buffer((24, 16), "bfloat16", scope="local", layout=B_FRAG_K8.tile_to([24, 16], [8, 8]))
    C = T.alloc_buffer((32, 16), "float32", scope="local", layout=D_FRAG.tile_to([32, 16], [16, 8]))
    D = T.alloc_buffer((32, 16), "float32", scope="local", layout=D_FRAG.tile_to([32, 16], [16, 8]))
    A_reg = A.local(2, 2, 3, 2)
    for mt, rM, kt, kp in T.grid(2, 2, 3, 2):
        A_reg[mt, rM, kt, kp] = A_g[mt * 16 + lane // 4 + 8 * rM, kt * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(3, 2, 2)
    for kt, kp, nt in T.grid(3, 2, 2):
        B_reg[kt, kp, nt] = B_g[kt * 8 + 2 * (lane % 4) + kp, nt * 8 + lane // 4]
    C_reg = C.local(2, 2, 2, 2)
    for mt, rM, nt, rN in T.grid(2, 2, 2, 2):
        C_reg[mt, rM, nt, rN] = C_g[mt * 16 + lane // 4 + 8 * rM, nt * 8 + 2 * (lane % 4) + rN]
    Tx.warp.gemm(D, A, B, C, alpha=1.0, beta=1.0)
    D_reg = D.local(2, 2, 2, 2)
    for mt, rM, nt, rN in T.grid(2, 2, 2, 2):
        D_g[mt * 16 + lane // 4 + 8 * rM, nt * 8 + 2 * (lane % 4) + rN] = D_reg[mt, rM, nt, rN]
