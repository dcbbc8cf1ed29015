"""smem->tmem (tcgen05.cp.32x128b.warpx4): uint8 (64, 128) 128B-swizzled tile, rows 8..40: the row offset is one whole 1024-byte swizzle atom, so the cp starts 64 16-byte units past the descriptor."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def cp_u8(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 128), "uint8")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((64, 128), "uint8", scope="shared", layout=mma_shared_layout("uint8", 3, (64, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((32, 16), "uint8", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.copy_async(tmem[:, :], A_smem[8:40, 0:16], cta_group=1)
