# Row 72: broadcast a 1x6x1 region over 5x6x7.
# agreement: row=72
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def bcast(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 8, 12), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    X_s = T.alloc_buffer((16, 8, 12), "float16", scope="shared")
    Y_s = T.alloc_buffer((16, 8, 12), "float16", scope="shared")
    Tx.cta.copy(X_s[:, :, :], A[:, :, :])
    Tx.cta.copy(Y_s[:, :, :], A[:, :, :])
    T.cuda.cta_sync()
    Tx.cta.add(X_s[1:6, 2:8, 3:10], X_s[1:6, 2:8, 3:10], Y_s[0:1, 0:6, 0:1])
    Tx.cta.mul(X_s[1:6, 2:8, 3:10], Y_s[0:1, 0:6, 0:1], X_s[1:6, 2:8, 3:10])
    Tx.cta.copy(A[:, :, :], X_s[:, :, :])
