"""smem->tmem: columns 0..16 of a row-major (32, 32) uint8 tile: 32-byte rows
imply a 32B swizzle atom but the layout has no swizzle (TVM: swizzle mode
mismatch)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol


@T.prim_func
def cp_u8(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "uint8")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((32, 32), "uint8", scope="shared", layout=TileLayout(S[(32, 32) : (32, 1)]))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((32, 16), "uint8", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.copy_async(tmem[:, :], A_smem[:, 0:16], cta_group=1)
