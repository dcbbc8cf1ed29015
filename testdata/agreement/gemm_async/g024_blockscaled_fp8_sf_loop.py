"""Block-scaled fp8, one MMA k-step (K = 32) per call in a loop over k: the scale factors are the
symbolic column slice sfa[:, k : k+1] of a 4-per-column layout, so the tmem address is 64 + k // 4
and the instruction descriptor's sf_id is patched to k % 4 at run time."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_bs_loop(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float8_e4m3fn")
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
    for k in range(4):
        if tid == 0:
            Tx.gemm_async(tmem[:, :], A_smem[:, k * 32 : k * 32 + 32], B_smem[:, k * 32 : k * 32 + 32],
                          SFA=sfa[:, k : k + 1], SFB=sfb[0:64, k : k + 1], accum=k > 0)
