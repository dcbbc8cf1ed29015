"""Rejection: tf32 (float32 operands). The reference release's tcgen05 variant has no tf32 path:
AssertionError "tcgen05 schedule expected A_type=float16 or bfloat16, got float32"."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_tf32(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 32), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (128, 32)))
    B_smem = T.alloc_buffer((64, 32), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (64, 32)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :])
