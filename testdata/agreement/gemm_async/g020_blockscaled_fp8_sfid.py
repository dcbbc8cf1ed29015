"""Block-scaled fp8 (mxf8f6f4, e8m0 scale factors, scale_vec::1X), cta_group 1:
C[128, 64] fp32 += A[128, 128] @ B[64, 128]^T, K = 128 = 4 MMA k-steps whose four
scale factors share one tmem column, so each MMA patches the instruction descriptor's
scale-factor id (runtime_instr_desc)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_bs_fp8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float8_e4m3fn")
    B = T.match_buffer(B_ptr, (64, 128), "float8_e4m3fn")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (128, 128)))
    B_smem = T.alloc_buffer((64, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (64, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    sfa = T.decl_buffer((128, 4), "float8_e8m0fnu", scope="tmem", allocated_addr=64,
                        layout=TileLayout(S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    sfb = T.decl_buffer((128, 4), "float8_e8m0fnu", scope="tmem", allocated_addr=68,
                        layout=TileLayout(S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], SFA=sfa[:, :], SFB=sfb[0:64, :], accum=True)
