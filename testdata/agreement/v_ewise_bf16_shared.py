# Variation: bf16 add/mul in shared memory at 128 threads.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def bf16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "bfloat16")
    B = T.match_buffer(B_ptr, (64, 64), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    X_s = T.alloc_buffer((64, 64), "bfloat16", scope="shared")
    Y_s = T.alloc_buffer((64, 64), "bfloat16", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    Tx.cta.copy(Y_s[:, :], B[:, :])
    T.cuda.cta_sync()
    Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])
    Tx.cta.mul(X_s[:, :], X_s[:, :], T.bfloat16(0.5))
    Tx.cta.copy(A[:, :], X_s[:, :])
