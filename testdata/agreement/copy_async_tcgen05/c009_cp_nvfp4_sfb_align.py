"""smem->tmem (tcgen05.cp.32x128b.warpx4): an NVFP4 SFB-style scale-factor
tile (TVM test_align_middle_2_to_1_nvfp4_sfb): the tmem middle iters merge
into one (8, 4@TCol) while the shared middle stays two iters (4:512, 2:2048);
the planner cuts both at the union of their boundaries: eight cps."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol


@T.prim_func
def cp_sfb(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256, 16), "uint8")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((256, 16), "uint8", scope="shared", layout=TileLayout(S[(2, 4, 32, 4, 4) : (2048, 4, 16, 512, 1)]))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((256, 16), "uint8", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(2, 4, 32, 4, 4) : (16 @ TCol, 4 @ TCol, 1 @ TLane, 32 @ TCol, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.copy_async(tmem[:, :], A_smem[:, :], cta_group=1)
