"""Block-scaled fp8 with cta_group 2 (as TVM's test_gemm_block_scaled_fp8_cta_group_2): per CTA
M = 128 and 64 of B's N = 128; instructions M = 256 N = 128 K = 32 (.cta_group::2, mxf8f6f4)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_bs_pair(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float8_e4m3fn")
    T.device_entry()
    T.cta_id([2])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (128, 128)))
    B_smem = T.alloc_buffer((64, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (64, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)]))
    sfa = T.decl_buffer((128, 1), "float8_e8m0fnu", scope="tmem", allocated_addr=128,
                        layout=TileLayout(S[(4, 32) : (4 @ TCol, 1 @ TLane)] + R[4 : 32 @ TLane]))
    sfb = T.decl_buffer((128, 1), "float8_e8m0fnu", scope="tmem", allocated_addr=132,
                        layout=TileLayout(S[(4, 32) : (4 @ TCol, 1 @ TLane)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], SFA=sfa[0:128, 0:1], SFB=sfb[0:128, 0:1], cta_group=2)
