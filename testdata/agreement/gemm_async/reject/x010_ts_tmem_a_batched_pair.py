"""TS MMA of a CTA pair (cta_group 2, per-CTA M = 64: datapath B) whose A (f16) lives in tensor memory
bank-batched, A[2, 64, 64] over both 64-lane halves, as FlashMLA's
sparse_prefill_head128_small_topk_phase1.py declares q_tmem_fold. 0.26 and 0.27 accept it (A_batched);
tilels does not model it ("not modelled"); 0.25 asserts a 2-D A."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_ts_pair_batched_a(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([2])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    B_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((64, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(64, 2, 64) : (1 @ TLane, 64 @ TLane, 1 @ TCol)]))
    a_tmem = T.decl_buffer((2, 64, 64), "float16", scope="tmem", allocated_addr=tmem_addr[0],
                           layout=TileLayout(S[(2, 64, 64) : (64 @ TLane, 1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], a_tmem[:, :, :], B_smem[:, :], cta_group=2)
