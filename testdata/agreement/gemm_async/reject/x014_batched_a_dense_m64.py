"""bank-batched A[2, 64, 64] in tensor memory for a dense M = 64 cta_group 1 MMA (C in Layout F): 0.26
and later raise the ValueError that the batched A is valid only in Layouts E and B; 0.25 asserts a 2-D A."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_batched_a_dense(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    B_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    tmem = T.decl_buffer((64, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(4, 16, 64) : (32 @ TLane, 1 @ TLane, 1 @ TCol)]))
    a_tmem = T.decl_buffer((2, 64, 64), "float16", scope="tmem", allocated_addr=tmem_addr[0],
                           layout=TileLayout(S[(2, 64, 64) : (64 @ TLane, 1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[0:64, 0:64], a_tmem[:, :, :], B_smem[:, :])
