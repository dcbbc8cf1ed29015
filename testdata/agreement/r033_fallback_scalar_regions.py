# Row 33: local -> local is in no fast pair: fallback copies one element.
# agreement: row=33
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def scalar_regions(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4,), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    src = T.alloc_buffer((1,), "float32", scope="local")
    dst = T.alloc_buffer((4,), "float32", scope="local")
    Tx.copy(src[:], A[0:1])
    Tx.copy(dst[2:3], src[:])
    Tx.copy(A[0:4], dst[:])
