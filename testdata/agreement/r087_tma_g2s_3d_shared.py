# Row 87: 64x256 global into slice [1:2] of a 3x64x256 swizzled shared buffer.
# agreement: row=87
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def g2s(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 256), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([98368], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((3, 64, 256), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (3, 64, 256)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=12288)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[1:2, :, :], A[:, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 32768)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
