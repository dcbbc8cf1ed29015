# Row 94: stage 0 of a 3x8x256 tensor into an 8x256 swizzled tile, load and store.
# agreement: row=94
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def g2s(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (3, 8, 256), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([4160], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((8, 256), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (8, 256)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=512)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[0:1, :, :], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 4096)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)


@T.prim_func
def s2g(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (3, 8, 256), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([4160], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((8, 256), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (8, 256)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=512)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A[0:1, :, :], A_s[:, :], dispatch="tma")
        T.ptx.cp_async.bulk.commit_group()
        T.ptx.cp_async.bulk.wait_group()
