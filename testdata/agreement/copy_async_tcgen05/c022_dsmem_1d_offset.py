"""dsmem: elements 64..192 of a 256-element float32 shared vector into the same
place of CTA 1's copy: one bulk copy of 512 bytes from and to element 64."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def dsmem_1d(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    X_s = T.alloc_buffer((256,), "float32", scope="shared")
    Y_s = T.alloc_buffer((256,), "float32", scope="shared")
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        Tx.copy_async(Y_s[64:192], X_s[64:192], remote_cta_id=1, mbar=bar.ptr_to([0]))
