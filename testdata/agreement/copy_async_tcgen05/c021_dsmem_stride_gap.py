"""dsmem: rows of 128 float16 with a 256-element stride on both sides: eight
cp.async.bulk.shared::cluster copies of 256 bytes, one per row."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def dsmem_rows(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 128), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    X_s = T.alloc_buffer((8, 128), "float16", scope="shared", layout=TileLayout(S[(8, 128) : (256, 1)]))
    Y_s = T.alloc_buffer((8, 128), "float16", scope="shared", layout=TileLayout(S[(8, 128) : (512, 1)]))
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        Tx.copy_async(Y_s[:, :], X_s[:, :], remote_cta_id=1, mbar=bar.ptr_to([0]))
