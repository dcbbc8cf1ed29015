"""smem->tmem: the (32, 16) uint8 copy of c001 issued with cta_group=2:
tcgen05.cp.cta_group::2.32x128b.warpx4."""
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
    tmem = T.decl_buffer((32, 16), "uint8", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.copy_async(tmem[:, :], A_smem[:, :], cta_group=2)
