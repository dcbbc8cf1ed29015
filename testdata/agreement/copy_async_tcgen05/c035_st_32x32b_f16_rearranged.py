"""tmem<->local: flash_attention4.py's P store. A (128, 64) float16 register tile is written in two halves of 32 columns into the f16 view of tmem rearranged "m (s two n) -> s two m n", at stage wg (the warpgroup id), half 1, columns i*128//4: the column offset (i*128)//4 + wg*128 + 64 is a multiple of 2 (two f16 per 32-bit column), which the reference proves (tilels did not: a false AssertionError), and each half is one tcgen05.st.32x32b.x16."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, TLane, TCol, tid_in_wg


@T.prim_func
def p_store(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([2])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([256])
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 256), "float16", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 256) : (1 @ TLane, 1 @ TCol)]))
    P = T.meta_var(tmem.rearrange("m (s two n) -> s two m n", two=2, n=64))
    p = T.alloc_buffer((128, 64), "float16", scope="local", layout=TileLayout(S[(128, 64) : (1 @ tid_in_wg, 1)]))
    for i in T.unroll(2):
        Tx.wg.copy_async(P[wg, 1, :, i * 128 // 4 : (i + 1) * 128 // 4], p[:, i * 128 // 4 : (i + 1) * 128 // 4])
