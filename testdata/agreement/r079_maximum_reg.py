# Row 79: maximum on a one-element f32 register tile at 128 threads.
# agreement: row=79
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def maxreg(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    m = T.alloc_local((1,), "float32")
    Tx.copy(m[:], A[tid:tid + 1])
    Tx.maximum(m[:], m[:], T.float32(0.0))
    Tx.copy(A[tid:tid + 1], m[:])
