# Variation: a shared-to-shared copy_async at thread scope: the dsmem variant's
# predicates pass (TVM lowers it to cp.async.bulk shared::cluster); tilels does
# not lower dsmem yet and declines.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def s2s(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    X_s = T.alloc_buffer((64,), "float32", scope="shared")
    Y_s = T.alloc_buffer((64,), "float32", scope="shared")
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        Tx.copy_async(Y_s[:], X_s[:], remote_cta_id=0, mbar=bar.ptr_to([0]))
