# Variation: a region that straddles the last digit of a three-iter layout group
# (the Slice wrap-around case).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def wrap(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (24,), "float32", layout=TileLayout(S[(3, 2, 4):(40, 100, 1)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    L = T.alloc_local((2,), "float32")
    Tx.copy(L[:], A[15:17])
    Tx.copy(A[4:6], L[:])
