"""gemm mma.m16n8k*: the same m16n8k16 tile issued at cta scope (4 warps, every warp runs the
collective mma on its own registers: the intra set is warpid × laneid, both full) and at
warpgroup scope (wid_in_wg × laneid). Every warp loads the same A and B; warp 0 stores D."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])


@T.prim_func
def cta_scope(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (16, 16), "float16")
    B_g = T.match_buffer(B_ptr, (16, 8), "float16")
    C_g = T.match_buffer(C_ptr, (16, 8), "float32")
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    warp = T.warp_id([4])
    lane = T.lane_id([32])
    T.thread_id([128])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    C = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    A_reg = A.local(2, 2, 2)
    for rM, kHi, kp in T.grid(2, 2, 2):
        A_reg[rM, kHi, kp] = A_g[lane // 4 + 8 * rM, kHi * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(2, 2)
    for kHi, kp in T.grid(2, 2):
        B_reg[kHi, kp] = B_g[kHi * 8 + 2 * (lane % 4) + kp, lane // 4]
    C_reg = C.local(2, 2)
    for rM, rN in T.grid(2, 2):
        C_reg[rM, rN] = C_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN]
    Tx.cta.gemm(D, A, B, C, beta=1.0)
    if warp == 0:
        D_reg = D.local(2, 2)
        for rM, rN in T.grid(2, 2):
            D_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[rM, rN]


@T.prim_func
def warpgroup_scope(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, (16, 16), "bfloat16")
    B_g = T.match_buffer(B_ptr, (16, 8), "bfloat16")
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    wid = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    T.thread_id([128])
    A = T.alloc_buffer((16, 16), "bfloat16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "bfloat16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    A_reg = A.local(2, 2, 2)
    for rM, kHi, kp in T.grid(2, 2, 2):
        A_reg[rM, kHi, kp] = A_g[lane // 4 + 8 * rM, kHi * 8 + 2 * (lane % 4) + kp]
    B_reg = B.local(2, 2)
    for kHi, kp in T.grid(2, 2):
        B_reg[kHi, kp] = B_g[kHi * 8 + 2 * (lane % 4) + kp, lane // 4]
    Tx.wg.gemm(D, A, B, D)
    if wid == 0:
        D_reg = D.local(2, 2)
        for rM, rN in T.grid(2, 2):
            D_g[lane // 4 + 8 * rM, 2 * (lane % 4) + rN] = D_reg[rM, rN]
