"""tmem<->local: a (64, 32) float32 tmem buffer in datapath layout F (rows 16w+r at
lane 32w+r) read with the .32x32b atom into a (64, 16) register tile: TVM rejects
the pairing (F only fills 16 lanes of each warp slab)."""
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
    tmem = T.decl_buffer((64, 32), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(4, 16, 32) : (32 @ TLane, 1 @ TLane, 1 @ TCol)]))
    R = T.alloc_buffer((64, 16), "float32", scope="local", layout=TileLayout(S[(64, 16) : (1 @ tid_in_wg, 1)]))
    Tx.wg.copy_async(R[:, :], tmem[:, 0:16])
