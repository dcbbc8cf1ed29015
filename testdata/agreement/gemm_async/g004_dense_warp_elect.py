"""Dense f16 issued at warp scope: every MMA is guarded by elect.sync (one lane issues).
M = 128, N = 256, K = 32 with 64B-swizzled operands (K = 32 = one 64B atom)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_warp(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    lane = T.lane_id([32])
    A_smem = T.alloc_buffer((128, 32), "float16", scope="shared", layout=mma_shared_layout("float16", 2, (128, 32)))
    B_smem = T.alloc_buffer((256, 32), "float16", scope="shared", layout=mma_shared_layout("float16", 2, (256, 32)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 256) : (1 @ TLane, 1 @ TCol)]))
    if warp_id == 0:
        Tx.warp.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], accum=True)
