"""Two accumulators in one tmem allocation, picked by a loop variable: C = tmem[:, s*64 : s*64+64]
(a symbolic tmem column offset s * 64), A/B from stage s of 2-stage buffers (a symbolic descriptor
offset s * 1024), issued from warp 1 (warp scope, elect.sync)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_two_acc(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    lane = T.lane_id([32])
    A_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    B_smem = T.alloc_buffer((2, 64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 64, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)]))
    for s in range(2):
        if warp_id == 1:
            Tx.warp.gemm_async(tmem[:, s * 64 : s * 64 + 64], A_smem[s, :, :], B_smem[s, :, :])
