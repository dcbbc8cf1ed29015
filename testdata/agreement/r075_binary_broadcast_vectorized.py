# Row 75: 32x5x4 fp16 times a 32x1x4 broadcast at 32 threads (vec 4).
# agreement: row=75
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def vbcast(A_ptr: T.handle, Bv_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 5, 4), "float16")
    Bv = T.match_buffer(Bv_ptr, (32, 1, 4), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    X_s = T.alloc_buffer((32, 5, 4), "float16", scope="shared")
    Y_s = T.alloc_buffer((32, 1, 4), "float16", scope="shared")
    Tx.cta.copy(X_s[:, :, :], A[:, :, :])
    Tx.cta.copy(Y_s[:, :, :], Bv[:, :, :])
    T.cuda.cta_sync()
    Tx.cta.mul(X_s[:, :, :], X_s[:, :, :], Y_s[:, :, :])
    Tx.cta.copy(A[:, :, :], X_s[:, :, :])
