"""mma_n=96 for N = 256: 0.26 and later raise that mma_n must divide N; 0.25 ignores it."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_tile_n96(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    A_smem = T.alloc_buffer((128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (128, 64)))
    B_smem = T.alloc_buffer((256, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (256, 64)))
    tmem = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 256) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], mma_m=128, mma_n=96)
