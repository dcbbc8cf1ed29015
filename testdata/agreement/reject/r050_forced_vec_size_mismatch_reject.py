# Row 50: dispatch="vec_64b" on four floats: rejected.
# agreement: row=50
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def mismatch(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4,), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    L = T.alloc_buffer((4,), "float32", scope="local")
    Tx.copy(L[:], A[:], dispatch="vec_64b")
