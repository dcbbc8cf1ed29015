"""Dense bf16 with cta_group 2 (as TVM's test_gemm_tcgen05_cta_group_2): per CTA M = 128 rows of A
and 128 of B's N = 256; the pair issues M = 256 N = 256 K = 16 instructions (m_dim = 16)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_pair(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "bfloat16")
    T.device_entry()
    T.cta_id([2])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 64), "bfloat16", scope="shared", layout=mma_shared_layout("bfloat16", 3, (128, 64)))
    B_smem = T.alloc_buffer((128, 64), "bfloat16", scope="shared", layout=mma_shared_layout("bfloat16", 3, (128, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 256) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], cta_group=2, mma_m=256, mma_n=256)
