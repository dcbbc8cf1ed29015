"""dsmem: a (16, 32) float16 column block (columns 32..64) of a (16, 128)
tile: 16 bulk copies of 64 bytes (one per row), the row stride 128 elements
on both sides.

Runs on sm_90: a cluster of two CTAs, each copying its tile of A into a
shared tile of its own rank (remote_cta_id = cta_id_in_cluster; cp.async.bulk
shared::cluster needs a cluster launch), completing on its mbarrier, then
writing the destination tile to B."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def dsmem_cols(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 16, 128), "float16")
    B = T.match_buffer(B_ptr, (2, 16, 128), "float16")
    T.device_entry()
    bx = T.cta_id([2])
    rank = T.cta_id_in_cluster([2])
    tid = T.thread_id([128])
    X_s = T.alloc_buffer((16, 128,), "float16", scope="shared", layout=TileLayout(S[16, 128]))
    Y_s = T.alloc_buffer((16, 128,), "float16", scope="shared", layout=TileLayout(S[16, 128]))
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    Tx.cta.copy(X_s[:, :], A[bx, :, :])
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(Y_s[:, 32:64], X_s[:, 32:64], remote_cta_id=rank, mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 1024)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
    Tx.cta.copy(B[bx, :, :], Y_s[:, :])
