# Row 63: fill a 128x5x5 fp16 shared tile with 7.89 at 128 threads.
# agreement: row=63
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def fill(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 5, 5), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    X_s = T.alloc_buffer((128, 5, 5), "float16", scope="shared")
    Tx.cta.fill(X_s[:, :, :], T.float16(7.89))
    Tx.cta.copy(A[:, :, :], X_s[:, :, :])
