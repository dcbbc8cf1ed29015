"""dsmem: a (16, 32) float16 column block (columns 32..64) of a (16, 128) tile:
16 bulk copies of 64 bytes (one per row), the row stride 128 elements on both
sides."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def dsmem_cols(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 128), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    X_s = T.alloc_buffer((16, 128), "float16", scope="shared", layout=TileLayout(S[16, 128]))
    Y_s = T.alloc_buffer((16, 128), "float16", scope="shared", layout=TileLayout(S[16, 128]))
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        Tx.copy_async(Y_s[:, 32:64], X_s[:, 32:64], remote_cta_id=1, mbar=bar.ptr_to([0]))
