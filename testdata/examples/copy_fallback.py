# A 4x6 tile has 24 elements, which 32 lanes cannot share evenly: every fast
# copy variant declines and the scalar fallback runs on lane 0 only.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout

ROWS, COLS = 4, 6


@T.prim_func
def small_tile(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (ROWS, COLS), "float32")
    B = T.match_buffer(B_ptr, (ROWS, COLS), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_smem = T.alloc_buffer((ROWS, COLS), "float32", scope="shared", layout=TileLayout(S[ROWS, COLS]))
    Tx.warp.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_smem[:, :])

# tilels: reference=0.25  (a seeds example, written for apache-tvm 0.25.0.post1)
