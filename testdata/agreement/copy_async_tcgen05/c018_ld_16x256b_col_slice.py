"""tmem<->local: columns 8..16 of a (128, 32) float32 .16x256b atom tile (rep 4):
the slice is one repetition, tcgen05.ld.16x256b.x1 of 4 registers per slab from
register 4 (slab 0) and 20 (slab 1), tmem column 8."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol, tid_in_wg, tcgen05_atom_layout


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
    tmem = T.decl_buffer((128, 32), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 32) : (1 @ TLane, 1 @ TCol)]))
    R = T.alloc_buffer((128, 32), "float32", scope="local", layout=tcgen05_atom_layout("16x256b", (128, 32), "float32"))
    Tx.wg.copy_async(R[:, 8:16], tmem[:, 8:16])
