# Row 49: dispatch="vec_128b" on a 4-element uint32 local <-> shared copy.
# agreement: row=49
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def forced(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "uint32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((8,), "uint32", scope="shared")
    L = T.alloc_buffer((4,), "uint32", scope="local")
    Tx.copy(A_s[:], A[:])
    Tx.copy(A_s[0:4], L[:], dispatch="vec_128b")
    Tx.copy(L[:], A_s[0:4], dispatch="vec_128b")
    Tx.copy(A[:], A_s[:])
