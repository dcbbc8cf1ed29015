# A warp copies a 32x32 float32 tile from global to shared memory and back.
# Each lane moves 16 bytes per iteration: 8 iterations of float4-sized copies.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def roundtrip(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32", layout=TileLayout(S[32, 32]))
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_smem[:, :])

# tilels: reference=0.25  (a seeds example, written for apache-tvm 0.25.0.post1)
