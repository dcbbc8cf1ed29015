"""Block-scaled mxfp4 (kind mxf4: fp4 e2m1 data, e8m0 scale factors every 32 elements,
scale_vec::2X): K = 128 = two fp4 k-steps, two scale factors per k-step packed four to a tmem
column, so the second MMA patches sf_id = 2. B is transposed-free K-major, 64B swizzle."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_mxf4(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float4_e2m1fn")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 128), "float4_e2m1fn", scope="shared", layout=mma_shared_layout("float4_e2m1fn", 2, (128, 128)))
    B_smem = T.alloc_buffer((64, 128), "float4_e2m1fn", scope="shared", layout=mma_shared_layout("float4_e2m1fn", 2, (64, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    sfa = T.decl_buffer((128, 4), "float8_e8m0fnu", scope="tmem", allocated_addr=64,
                        layout=TileLayout(S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    sfb = T.decl_buffer((128, 4), "float8_e8m0fnu", scope="tmem", allocated_addr=80,
                        layout=TileLayout(S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], SFA=sfa[:, :], SFB=sfb[0:64, :], accum=True)
