"""tmem<->local: a datapath-F (64, 16) tmem buffer with a 128-row .16x128b atom
tile: F fills only the low 16-row slab (TVM rejects the pairing)."""
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
    tmem = T.decl_buffer((64, 16), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(4, 16, 16) : (32 @ TLane, 1 @ TLane, 1 @ TCol)]))
    R = T.alloc_buffer((128, 16), "float32", scope="local", layout=tcgen05_atom_layout("16x128b", (128, 16), "float32"))
    Tx.wg.copy_async(R[0:64, :], tmem[:, :])
