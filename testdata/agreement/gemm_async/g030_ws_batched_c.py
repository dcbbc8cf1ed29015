"""M = 64, cta_group 1, C given as the batched .ws fold C[2, 64, 64] = S[(2, 64, 64):(64@TLane,
1@TLane, 1@TCol)] (the two 64-lane halves of an N = 128 accumulator): 0.26 and later read it as the
packed Layout-E fold, infer the weight-stationary datapath and emit tcgen05.mma.ws (FlashMLA's
sparse_decode_head64.py p_tmem); 0.25 asserts a 2-D C."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_ws_batched(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    A_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    B_smem = T.alloc_buffer((128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (128, 64)))
    tmem = T.decl_buffer((2, 64, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(2, 64, 64) : (64 @ TLane, 1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :, :], A_smem[:, :], B_smem[:, :])
