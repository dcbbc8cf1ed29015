"""TS MMA on the M = 64 weight-stationary datapath (Layout E): A (bf16, 64 x 64) bank-batched in tensor
memory, A[2, 64, 64] = S[(2, 64, 64):(64@TLane, 1@TLane, 1@TCol)], into a batched C[2, 64, 64]
(FlashMLA's sparse_decode_head64.py q tails); 0.26 and later emit tcgen05.mma.ws with A in tensor memory."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_ws_ts(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    B_smem = T.alloc_buffer((128, 64), "bfloat16", scope="shared", layout=mma_shared_layout("bfloat16", 3, (128, 64)))
    tmem = T.decl_buffer((2, 64, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(2, 64, 64) : (64 @ TLane, 1 @ TLane, 1 @ TCol)]))
    a_tmem = T.decl_buffer((2, 64, 64), "bfloat16", scope="tmem", allocated_addr=tmem_addr[0],
                           layout=TileLayout(S[(2, 64, 64) : (64 @ TLane, 1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :, :], a_tmem[:, :, 0:32], B_smem[:, 0:32])
