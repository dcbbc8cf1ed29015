"""Rejection: a regular (not block-scaled) fp8 MMA. The reference's tcgen05 variant only takes
f16/bf16 without scale factors: AssertionError "tcgen05 schedule expected A_type=float16 or
bfloat16, got float8_e4m3fn"."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_fp8_dense(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float8_e4m3fn")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (128, 128)))
    B_smem = T.alloc_buffer((64, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (64, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :])
