# Two cases of one kernel def, from the bind directive: a 32x32 tile that a
# vectorised copy takes, and a 4x6 tile that only the scalar fallback accepts.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


# tilels: bind rows=32, cols=32
# tilels: bind rows=4, cols=6
def make_stage(rows, cols):
    @T.prim_func
    def stage(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (rows, cols), "float16")
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
        A_s = T.alloc_buffer((rows, cols), "float16", scope="shared")
        Tx.warp.copy(A_s[:, :], A[:, :])

    return stage
# tilels: reference=0.25  (written for apache-tvm 0.25.0.post1: gmem_smem, not vec_auto)
