"""datapath B (0.26 and later) read into a 128-row fragment: the reference refuses it (the fragment must
be (64, N))."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol, tid_in_wg


@T.prim_func
def ld_b_rows(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((64, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(64, 2, 64) : (1 @ TLane, 64 @ TLane, 1 @ TCol)]))
    R2 = T.alloc_buffer((128, 128), "float32", scope="local", layout=TileLayout(S[(128, 128) : (1 @ tid_in_wg, 1)]))
    Tx.wg.copy_async(R2[0:64, :], tmem[:, :])
