# Row 90: rows [64, 88) of 128x64 into slice [0, 0] of a 2x2x24x64 swizzled tile.
# agreement: row=90
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def g2s(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([12352], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((2, 2, 24, 64), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (2, 2, 24, 64)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=1536)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[0, 0, :, :], A[64:88, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 3072)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
