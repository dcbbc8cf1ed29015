"""smem->tmem (tcgen05.cp.32x128b.warpx4): four stacked (32, 16) uint8 tiles
(shared S[(4, 32, 16):(512, 16, 1)], tmem S[(4, 32, 16):(16@TCol, 1@TLane,
1@TCol)]): an unrolled loop of four cps, each advancing the descriptor by 32
16-byte units and the tmem column by 4."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol


@T.prim_func
def cp_4tiles(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32, 16), "uint8")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((4, 32, 16), "uint8", scope="shared", layout=TileLayout(S[(4, 32, 16) : (512, 16, 1)]))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((4, 32, 16), "uint8", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(4, 32, 16) : (16 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.copy_async(tmem[:, :, :], A_smem[:, :, :], cta_group=1)
