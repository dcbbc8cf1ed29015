"""weight_stationary=True at M = 64, cta_group 1 with C in Layout F: 0.26 and later raise the ValueError
that .ws writes the Layout-E fold; 0.25 ignores weight_stationary and lowers the MMA."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_ws_layout_f(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    A_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    B_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    tmem = T.decl_buffer((64, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(4, 16, 64) : (32 @ TLane, 1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[0:64, 0:64], A_smem[:, :], B_smem[:, :], weight_stationary=True)
