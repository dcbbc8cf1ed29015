"""Dense f16 with both operands transposed (transA: A stored [K, M], transB: B stored [K, N]), each
laid out by mma_shared_layout over its stored shape, so the descriptors are MN-major (a_major =
b_major = 1 in the instruction descriptor, LBO/SBO swapped). M = 128, N = 128, K = 64."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_trans(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 128), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((64, 128), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 128)))
    B_smem = T.alloc_buffer((64, 128), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], transA=True, transB=True)
