"""Block-scaled nvfp4 (kind mxf4nvf4, e4m3 scale factors every 16 elements, scale_vec::4X), as
TVM's test_gemm_block_scaled_nvfp4_cta_group_1: M = 128, N = 128, K = 64 (one fp4 MMA), four
scale factors per row in one tmem column (sf_tmem_layout(128, 4, 4))."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_nvfp4(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float4_e2m1fn")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 128), "float4_e2m1fn", scope="shared", layout=mma_shared_layout("float4_e2m1fn", 2, (128, 128)))
    B_smem = T.alloc_buffer((128, 128), "float4_e2m1fn", scope="shared", layout=mma_shared_layout("float4_e2m1fn", 2, (128, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)]))
    sfa = T.decl_buffer((128, 4), "float8_e4m3fn", scope="tmem", allocated_addr=128,
                        layout=TileLayout(S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    sfb = T.decl_buffer((128, 4), "float8_e4m3fn", scope="tmem", allocated_addr=144,
                        layout=TileLayout(S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, 0:64], B_smem[:, 0:64], SFA=sfa[:, :], SFB=sfb[:, :])
