# dispatch="tma_explicit" (0.26+): one TensorMap taken from the buffers as
# they are and one TMA instruction, no issue loop; oob="nan" on a load past
# the edge, an L2 promotion, a store; and the same edge load under tma_auto,
# which refuses a non-default oob. 0.25 refuses both names.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def g2s_s2g(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([8256], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((64, 64), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (64, 64)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=1024)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[:, :], dispatch="tma_explicit", mbar=bar.ptr_to([0]),
                      tensormap_l2_promotion="L2::128B")
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 8192)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(B[:, :], A_s[:, :], dispatch="tma_explicit")
        T.ptx.cp_async.bulk.commit_group()
        T.ptx.cp_async.bulk.wait_group()


@T.prim_func
def edge_nan(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (100, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([8256], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((32, 64), "float32", dyn.data, elem_offset=0, layout=TileLayout(S[32, 64]))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=1024)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[80:112, :], dispatch="tma_explicit", mbar=bar.ptr_to([0]), oob="nan")
        Tx.copy_async(A_s[:, :], A[80:112, :], dispatch="tma_auto", mbar=bar.ptr_to([0]), oob="nan")
        Tx.copy_async(A_s[:, :], A[64:96, :], dispatch="tma_auto", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 8192)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
