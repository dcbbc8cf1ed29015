"""Dense bf16, cta_group 1, as TVM's test_gemm_tcgen05_cta_group_1: A and B are stage 1 / 2 of
3-stage 128B-swizzled buffers (a constant 8192-element stage offset in every descriptor offset),
C is columns 256:384 of a 128x512 tmem accumulator (tmem column offset 256), N = 128."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_stage(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((3, 128, 64), "bfloat16", scope="shared", layout=mma_shared_layout("bfloat16", 3, (3, 128, 64)))
    B_smem = T.alloc_buffer((3, 128, 64), "bfloat16", scope="shared", layout=mma_shared_layout("bfloat16", 3, (3, 128, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 512) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[0:128, 256:384], A_smem[1:2, 0:128, 0:64], B_smem[2:3, 0:128, 0:64], accum=True)
