# Variation: a thread copies one shared row to and from 8 registers.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def row(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((8, 8), "float32", scope="shared")
    L = T.alloc_local((8,), "float32")
    Tx.copy(A_s[:, :], A[:, :])
    Tx.copy(L[:], A_s[3, 0:8])
    Tx.copy(A_s[5, 0:8], L[:])
    Tx.copy(A[:, :], A_s[:, :])
