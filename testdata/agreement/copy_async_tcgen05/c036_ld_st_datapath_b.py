"""tmem<->local, datapath B (0.26 and later): a (64, 128) fp32 accumulator of a cta_group::2 M=64 MMA,
laid out as tmem_datapath_layout("B", 64, 128), read into its Layout B fragment (64, 2, 64):(1@tid_in_wg,
64@tid_in_wg, 1) with one tcgen05.ld.32x32b.x64 per warp, and stored back with tcgen05.st; 0.25 reads
it as a 64-row .32x32b window and rejects it."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
# tilels-test: reference=0.27
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol, tid_in_wg


@T.prim_func
def ld_st_b(A_ptr: T.handle):
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
    frag = T.alloc_buffer((64,), "float32", scope="local")
    R = frag.view(64, 128, layout=TileLayout(S[(64, 2, 64) : (1 @ tid_in_wg, 64 @ tid_in_wg, 1)]))
    Tx.wg.copy_async(R[:, :], tmem[:, :])
    Tx.wg.copy_async(tmem[:, :], R[:, :])
