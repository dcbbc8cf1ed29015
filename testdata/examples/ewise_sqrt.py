# 256 threads take the square root of a 32x32 float32 tile in shared memory:
# four consecutive elements per thread, one float4 load and store each.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def sqrt_tile(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([256])
    A_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.sqrt(A_smem[:, :], A_smem[:, :])
    Tx.cta.copy(B[:, :], A_smem[:, :])

# tilels: reference=0.25  (a seeds example, written for apache-tvm 0.25.0.post1)
