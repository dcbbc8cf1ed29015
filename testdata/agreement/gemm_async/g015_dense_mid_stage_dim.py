"""Operands whose stage dimension sits in the middle (TVM's _mid_stage_layout): A is
(128, 3, 64) with the [128, 64] swizzled subspace per stage and stages 8192 elements apart;
the call takes A_smem[:, 2, :] (region [128, 1, 64]: unit dims are skipped when matching)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout

A_MID = mma_shared_layout("float16", 3, (128, 64)).tile_to((128, 3, 64), (128, 1, 64))
B_MID = mma_shared_layout("float16", 3, (64, 64)).tile_to((64, 3, 64), (64, 1, 64))


@T.prim_func
def gemm_mid(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 3, 64), "float16", scope="shared", layout=A_MID)
    B_smem = T.alloc_buffer((64, 3, 64), "float16", scope="shared", layout=B_MID)
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, 2, :], B_smem[:, 1, :], accum=True)
