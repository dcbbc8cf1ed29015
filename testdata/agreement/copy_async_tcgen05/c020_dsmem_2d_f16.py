"""dsmem: a (128, 64) float16 shared tile copied whole into another CTA of the
cluster: one cp.async.bulk.shared::cluster of 16384 bytes completing on the
remote mbarrier."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def dsmem_2d(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    X_s = T.alloc_buffer((128, 64), "float16", scope="shared", layout=TileLayout(S[128, 64]))
    Y_s = T.alloc_buffer((128, 64), "float16", scope="shared", layout=TileLayout(S[128, 64]))
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        Tx.copy_async(Y_s[:, :], X_s[:, :], remote_cta_id=1, mbar=bar.ptr_to([0]))
