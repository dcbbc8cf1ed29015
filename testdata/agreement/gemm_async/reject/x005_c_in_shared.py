"""Rejection: the accumulator must live in tensor memory (ValueError "tcgen05 schedule expected
C_scope=tmem, A_scope=shared, B_scope=shared, got C_scope=shared, ...")."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_c_smem(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (128, 64)))
    B_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    C_smem = T.alloc_buffer((128, 64), "float32", scope="shared")
    if tid == 0:
        Tx.gemm_async(C_smem[:, :], A_smem[:, :], B_smem[:, :])
