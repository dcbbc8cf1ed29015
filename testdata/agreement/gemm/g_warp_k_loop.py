"""gemm mma.m16n8k*: a K loop over register fragments. A [16, 64] and B [64, 8] hold four k16
steps; the first gemm (beta=0) starts D from A[:, 0:16]·B[0:16, :], then a loop accumulates the
other steps into D (beta=1) on regions that start at the loop variable: the reference slices the
fragments with the symbolic start, so each mma reads A's and B's registers at kt times the step's
register stride (an unrolled loop in f16, a serial one in bf16)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])
A_L = A_FRAG.tile_to([16, 64], [16, 16])
B_L = B_FRAG.tile_to([64, 8], [16, 8])


@T.prim_func
def k_loop_unrolled(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (16, 64), "float16")
    B_g = T.match_buffer(B_ptr, (64, 8), "float16")
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 64), "float16", scope="local", layout=A_L)
    B = T.alloc_buffer((64, 8), "float16", scope="local", layout=B_L)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    A_reg = A.local(2, 8, 2)
    for rM, kq, kp in T.grid(2, 8, 2):
        A_reg[rM, kq, kp] = A_g[lane // 4 + 8 * rM, kq * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(8, 2)
    for kq, kp in T.grid(8, 2):
        B_reg[kq, kp] = B_g[kq * 8 + 2 * (lane % 4) + kp, lane // 4]
    Tx.warp.gemm(D, A[:, 0:16], B[0:16, :], D)
    for kt in T.unroll(1, 4):
        Tx.warp.gemm(D, A[:, kt * 16:kt * 16 + 16], B[kt * 16:kt * 16 + 16, :], D, beta=1.0)
    D_reg = D.local(2, 2)
    for rM, rN in T.grid(2, 2):
        D_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[rM, rN]


@T.prim_func
def k_loop_serial(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (16, 64), "bfloat16")
    B_g = T.match_buffer(B_ptr, (64, 8), "bfloat16")
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 64), "bfloat16", scope="local", layout=A_L)
    B = T.alloc_buffer((64, 8), "bfloat16", scope="local", layout=B_L)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    A_reg = A.local(2, 8, 2)
    for rM, kq, kp in T.grid(2, 8, 2):
        A_reg[rM, kq, kp] = A_g[lane // 4 + 8 * rM, kq * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(8, 2)
    for kq, kp in T.grid(8, 2):
        B_reg[kq, kp] = B_g[kq * 8 + 2 * (lane % 4) + kp, lane // 4]
    Tx.warp.gemm(D, A[:, 0:16], B[0:16, :], D)
    for kt in range(1, 4):
        Tx.warp.gemm(D, A[:, kt * 16:kt * 16 + 16], B[kt * 16:kt * 16 + 16, :], D, beta=1.0)
    D_reg = D.local(2, 2)
    for rM, rN in T.grid(2, 2):
        D_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[rM, rN]
