# Variation: a 4x200 uint8 tensor: its 200-byte row stride is not 16-byte aligned,
# the merged box (800) exceeds 256 uint8 elements, so the planner promotes the
# element type to merge the rows into one dimension.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def u8_rows(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 200), "uint8")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([1088], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((4, 200), "uint8", dyn.data, elem_offset=0, layout=TileLayout(S[4, 200]))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=128)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[:, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 800)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
