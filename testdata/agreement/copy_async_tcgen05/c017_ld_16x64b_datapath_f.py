"""tmem<->local: a (64, 32) float32 tmem buffer in datapath layout F (rows
16w+r at lane 32w+r) read with the .16x64b atom (M=64, rep 16): the canonical
pairing, one tcgen05.ld.16x64b.x16 per warp at row 0."""
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
    tmem = T.decl_buffer((64, 32), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(4, 16, 32) : (32 @ TLane, 1 @ TLane, 1 @ TCol)]))
    R = T.alloc_buffer((64, 32), "float32", scope="local", layout=tcgen05_atom_layout("16x64b", (64, 32), "float32"))
    Tx.wg.copy_async(R[:, :], tmem[:, :])
