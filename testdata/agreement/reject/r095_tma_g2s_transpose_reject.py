# Row 95: 32x64 into a transposed tile S[(32,64):(1,32)]: PRE's planner issues one
# element per instruction (box 1x1, 2048 issues). The descriptor breaks the
# 16-byte inner-box rule, so tilels's code generator rejects the kernel; the
# warp-scope copy_async (rejected: single thread only) keeps the CI compile gate,
# which compiles kernels whose calls all lower, away from it.
# agreement: row=95
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def g2s(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([4160], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((32, 64), "float16", dyn.data, elem_offset=0, layout=TileLayout(S[(32, 64):(1, 32)]))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=512)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[:, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 4096)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
    Tx.warp.copy_async(A_s[:, :], A[:, :], dispatch="tma", mbar=bar.ptr_to([0]))
