"""tmem<->local: a (128, 64) bfloat16 register tile loaded from tmem columns 32..96 in two halves: tcgen05.ld.32x32b.x16 each (two bf16 per 32-bit register; the second call starts at register 16, tmem column 32)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, TLane, TCol, tid_in_wg, tcgen05_atom_layout


@T.prim_func
def ldst(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 128), "bfloat16", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)]))
    R = T.alloc_buffer((128, 64), "bfloat16", scope="local", layout=TileLayout(S[(128, 64) : (1 @ tid_in_wg, 1)]))
    Tx.wg.copy_async(R[:, 0:32], tmem[:, 32:64])
    Tx.wg.copy_async(R[:, 32:64], tmem[:, 64:96])
