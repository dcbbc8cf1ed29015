"""smem->tmem (tcgen05.cp.32x128b.warpx4): a (32, 16) uint8 tile into columns
16..32 of a (32, 32) tmem buffer: one cp at tmem column 4 (32-bit units)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol


@T.prim_func
def cp_u8(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 16), "uint8")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((32, 16), "uint8", scope="shared", layout=TileLayout(S[(32, 16) : (16, 1)]))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((32, 32), "uint8", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(32, 32) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.copy_async(tmem[:, 16:32], A_smem[:, :], cta_group=1)
