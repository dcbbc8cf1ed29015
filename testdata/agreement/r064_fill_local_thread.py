# Row 64: fill thread-local tiles of shape[1:] (8), (4, 16), (5, 5).
# agreement: row=64
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def fill_local(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    a = T.alloc_local((8,), "float16")
    b = T.alloc_local((4, 16), "float16")
    c = T.alloc_local((5, 5), "float16")
    Tx.fill(a[:], T.float16(7.89))
    Tx.fill(b[:, :], T.float16(7.89))
    Tx.fill(c[:, :], T.float16(7.89))
    Tx.copy(A[tid, 0:8], a[:])
