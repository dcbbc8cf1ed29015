# Each lane of a warp holds one row of a 32x8 float32 tile in registers
# (layout S[(32, 8) : (1 @ laneid, 1)]) and moves it to and from shared memory
# with two 16-byte accesses.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid


@T.prim_func
def registers(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    B = T.match_buffer(B_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_smem = T.alloc_buffer((32, 8), "float32", scope="shared", layout=TileLayout(S[32, 8]))
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8) : (1 @ laneid, 1)]))
    Tx.warp.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(R[:, :], A_smem[:, :])
    Tx.warp.copy(A_smem[:, :], R[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_smem[:, :])

# tilels: reference=0.25  (a seeds example, written for apache-tvm 0.25.0.post1)
