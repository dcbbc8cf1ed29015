# Row 96: A[3, 4, :, :] of a 16x16x128x128 tensor whose middle dims are permuted.
# agreement: row=96
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def g2s(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16, 128, 128), "float16", layout=TileLayout(S[(16, 16, 128, 128):(131072, 128, 1024, 1)]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([32832], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((128, 128), "float16", dyn.data, elem_offset=0, layout=TileLayout(S[128, 128]))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=4096)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[3, 4, :, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 32768)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
