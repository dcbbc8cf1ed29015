"""The batched .ws fold C[2, 64, 256] (N = 512) at a column offset: two MMAs of N = 256 per k-step,
the second writing from column 128 (N_mma / 2) of each half, after the region's 32 columns; 0.26 and
later emit tcgen05.mma.ws; 0.25 asserts a 2-D C."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_ws_batched_wide(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    A_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    B_smem = T.alloc_buffer((512, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (512, 64)))
    tmem = T.decl_buffer((2, 64, 320), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(2, 64, 320) : (64 @ TLane, 1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :, 32:288], A_smem[:, :], B_smem[:, :])
