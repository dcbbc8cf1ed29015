"""TS MMA of a CTA pair (cta_group 2, per-CTA M = 64: datapath B) whose A (f16, 64 x 64) in tensor
memory has the plain identity layout, without the replica R[2:64@TLane] datapath B reads it with: 0.26
and 0.27 reject it ("TMEM A layout does not match tmem_pool.alloc_tcgen05_mma_A semantic layout"), 0.25
accepts it (its check is the identity)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_ts_pair_identity(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([2])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    B_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((64, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(64, 2, 64) : (1 @ TLane, 64 @ TLane, 1 @ TCol)]))
    a_tmem = T.decl_buffer((64, 128), "float16", scope="tmem", allocated_addr=tmem_addr[0],
                           layout=TileLayout(S[(64, 128) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], a_tmem[:, 64:128], B_smem[:, :], cta_group=2)
