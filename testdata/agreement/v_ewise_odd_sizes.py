# Variation: odd elementwise sizes at 96 threads: 7x13 fp16 and 3x5x7 fp32.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def odd16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (7, 13), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([3])
    T.lane_id([32])
    T.thread_id([96])
    X_s = T.alloc_buffer((7, 13), "float16", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.sqrt(X_s[:, :], X_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])


@T.prim_func
def odd32(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (3, 5, 7), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([3])
    T.lane_id([32])
    T.thread_id([96])
    X_s = T.alloc_buffer((3, 5, 7), "float32", scope="shared")
    Tx.cta.copy(X_s[:, :, :], A[:, :, :])
    T.cuda.cta_sync()
    Tx.cta.exp(X_s[:, :, :], X_s[:, :, :])
    Tx.cta.copy(A[:, :, :], X_s[:, :, :])
