"""M = 64 .ws (packed C) with a flat A[64, 64] in tensor memory: 0.26 and later raise the ValueError
that .ws reads A from both 64-lane halves; 0.25 rejects C's layout."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_ws_flat_a(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    B_smem = T.alloc_buffer((128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (128, 64)))
    tmem = T.decl_buffer((64, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(64, 2, 64) : (1 @ TLane, 64 @ TLane, 1 @ TCol)]))
    a_tmem = T.decl_buffer((64, 64), "float16", scope="tmem", allocated_addr=tmem_addr[0],
                           layout=TileLayout(S[(64, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[0:64, 0:128], a_tmem[:, :], B_smem[:, :])
