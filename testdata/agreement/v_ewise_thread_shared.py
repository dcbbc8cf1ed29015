# Variation: one thread scales a shared row slice.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def row(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    X_s = T.alloc_buffer((8, 32), "float16", scope="shared")
    Tx.copy(X_s[:, :], A[:, :])
    Tx.mul(X_s[2, :], X_s[2, :], T.float16(3.0))
    Tx.copy(A[:, :], X_s[:, :])
