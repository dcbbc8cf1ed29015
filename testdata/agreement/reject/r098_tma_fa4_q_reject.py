# Row 98: a 32x4x128 region of a 1x2048x32x128 tensor into a 128x128 tile: the
# region shapes differ, so validate_copy_op rejects it (the PRE golden calls the
# planner directly).
# agreement: row=98
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def g2s(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (1, 2048, 32, 128), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([65600], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((2, 128, 128), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (2, 128, 128)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=8192)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[0:1, :, :], A[0:1, 0:32, 0:4, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 32768)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
