# Row 53: dispatch="vec_128b" on smem[row, col:col+4] of a swizzled fp32 tile
# at a runtime row and column.
# agreement: row=53
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def dyn_swz(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 256), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    A_s = T.alloc_buffer((64, 256), "float32", scope="shared", layout=ComposeLayout(SwizzleLayout(2, 3, 3), TileLayout(S[(64, 8, 32):(32, 2048, 1)])))
    L = T.alloc_buffer((4,), "float32", scope="local")
    Tx.copy(L[:], A[tid, 0:4])
    Tx.copy(A_s[tid, tid * 4:tid * 4 + 4], L[:], dispatch="vec_128b")
    Tx.copy(L[:], A_s[tid, tid * 4:tid * 4 + 4], dispatch="vec_128b")
    Tx.copy(A[tid, 0:4], L[:])
