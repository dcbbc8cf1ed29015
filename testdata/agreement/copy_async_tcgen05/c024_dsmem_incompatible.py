"""dsmem: row-major source, column-major destination: the shared contiguous
run is one float16 (2 bytes), below cp.async.bulk's 16 (TVM: Layouts not
compatible for bulk DSMEM copy)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def dsmem_bad(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    X_s = T.alloc_buffer((4, 64), "float16", scope="shared", layout=TileLayout(S[4, 64]))
    Y_s = T.alloc_buffer((4, 64), "float16", scope="shared", layout=TileLayout(S[(4, 64) : (1, 4)]))
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        Tx.copy_async(Y_s[:, :], X_s[:, :], remote_cta_id=1, mbar=bar.ptr_to([0]))
