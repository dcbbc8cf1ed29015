"""smem->tmem (tcgen05.cp.32x128b.warpx4): columns 0..32 of a (32, 64) bfloat16
tile in 128B-swizzled shared memory: four cps, one per 16-byte column chunk,
the descriptor advancing one 16-byte unit and the tmem column four 32-bit
columns per chunk (swizzle 128B, SBO 1024 B)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def cp_bf16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 64), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((32, 64), "bfloat16", scope="shared", layout=mma_shared_layout("bfloat16", 3, (32, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((32, 32), "bfloat16", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(32, 32) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.copy_async(tmem[:, :], A_smem[:, 0:32], cta_group=1)
