"""TS MMA: A (f16, 128 x 64) lives in tensor memory at columns 64.. of its buffer (two f16 per
32-bit column: column offset 32 + 8 per k-step), B in shared memory; C at columns 0..63."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_ts(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    B_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    a_tmem = T.decl_buffer((128, 128), "float16", scope="tmem", allocated_addr=tmem_addr[0],
                           layout=TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], a_tmem[:, 64:128], B_smem[:, :])
