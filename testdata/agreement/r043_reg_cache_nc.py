# Row 43: int32 local 4x4 <- A[0:4, 4:8] of 16x16 inside `if tid == 0`, plain and
# with cache="nc".
# agreement: row=43
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def nc(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    L = T.alloc_buffer((4, 4), "int32", scope="local", layout=TileLayout(S[4, 4]))
    if tid == 0:
        Tx.copy(L[:, :], A[0:4, 4:8])
        Tx.copy(L[:, :], A[0:4, 4:8], cache="nc")
        Tx.copy(A[4:8, 4:8], L[:, :])
