"""gemm mma.m16n8k*: calls the variant declines or rejects, each in its own kernel: alpha != 1
and beta = 0.5 (mma.sync has no scaling), a lane-narrowed warp (full_active_lanes), f32
operands (no instruction in the table), an A staged in shared memory (the variant is
register-only), an M of 8 (no m16 tile fits), and a B whose lanes do not hold the m16n8 B
fragment (row-major lanes: no instruction's fragment tiles it)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])


@T.prim_func
def alpha_two():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    Tx.warp.gemm(D, A, B, D, alpha=2.0)


@T.prim_func
def beta_half():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    A = T.alloc_buffer((16, 16), "bfloat16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "bfloat16", scope="local", layout=B_FRAG)
    C = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    Tx.warp.gemm(D, A, B, C, beta=0.5)


@T.prim_func
def narrowed_lanes():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    if lane < 16:
        Tx.warp.gemm(D, A, B, D)


@T.prim_func
def f32_operands():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    A = T.alloc_buffer((16, 16), "float32", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "float32", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    Tx.warp.gemm(D, A, B, D)


@T.prim_func
def shared_a():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    A_s = T.alloc_buffer((16, 16), "float16", scope="shared")
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    Tx.warp.gemm(D, A_s, B, D)


@T.prim_func
def m_eight():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    A = T.alloc_buffer((8, 16), "float16", scope="local", layout=TileLayout(S[(8, 4, 2, 2):(4 @ laneid, 1 @ laneid, 2, 1)]))
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((8, 8), "float32", scope="local", layout=TileLayout(S[(8, 4, 2):(4 @ laneid, 1 @ laneid, 1)]))
    Tx.warp.gemm(D, A, B, D)


@T.prim_func
def b_row_lanes():
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=TileLayout(S[(16, 2, 4):(2 @ laneid, 1 @ laneid, 1)]))
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    Tx.warp.gemm(D, A, B, D)
