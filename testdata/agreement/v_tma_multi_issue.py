# Variation: TMA loads with issue loops: planes with a gap (fp32) and a transposed
# bf16 tile.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def gap_f32(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 16, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([16448], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((4, 16, 32), "float32", dyn.data, elem_offset=0, layout=TileLayout(S[(4, 16, 32):(1024, 32, 1)]))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=2048)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :, :], A[:, :, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 8192)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
