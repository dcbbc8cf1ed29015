# Variation: casts between fp32, fp16 and bf16 in shared memory.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def casts(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float16")
    C = T.match_buffer(C_ptr, (32, 32), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    X_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    Y_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    Z_s = T.alloc_buffer((32, 32), "bfloat16", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    Tx.cta.copy(Y_s[:, :], B[:, :])
    Tx.cta.copy(Z_s[:, :], C[:, :])
    T.cuda.cta_sync()
    Tx.cta.cast(Y_s[:, :], X_s[:, :])
    Tx.cta.cast(Z_s[:, :], X_s[:, :])
    Tx.cta.cast(X_s[:, :], Y_s[:, :])
    Tx.cta.cast(X_s[:, :], Z_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])
