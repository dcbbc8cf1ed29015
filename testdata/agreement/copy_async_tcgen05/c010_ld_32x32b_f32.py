"""tmem<->local: tcgen05.ld.32x32b.x16 of a (128, 16) float32 accumulator into
registers, then tcgen05.st.32x32b.x16 back at column 16 (one instruction each)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, TLane, TCol, tid_in_wg


@T.prim_func
def ld_st_f32(A_ptr: T.handle):
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
    R = T.alloc_buffer((128, 16), "float32", scope="local", layout=TileLayout(S[(128, 16) : (1 @ tid_in_wg, 1)]))
    Tx.wg.copy_async(R[:, :], tmem[:, 0:16])
    Tx.wg.copy_async(tmem[:, 16:32], R[:, :])
