# Variation: a transposed bf16 TMA load (2-byte boxes, 256 issues): the plan both
# tools compute breaks the 16-byte inner-box rule; see r095 for the companion
# rejected call.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def t_bf16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([1088], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((16, 16), "bfloat16", dyn.data, elem_offset=0, layout=TileLayout(S[(16, 16):(1, 16)]))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=128)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[:, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 512)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
    Tx.warp.copy_async(A_s[:, :], A[:, :], dispatch="tma", mbar=bar.ptr_to([0]))
