# Variation: region offsets that keep 8, 4 and 2-wide fp16 vectors.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def off72(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_s[:, :], A[1:33, 8:40])
    T.cuda.cta_sync()
    Tx.warp.copy(B[1:33, 8:40], A_s[:, :])


@T.prim_func
def off4(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_s[:, :], A[0:32, 4:36])
    T.cuda.cta_sync()
    Tx.warp.copy(B[0:32, 4:36], A_s[:, :])


@T.prim_func
def off2(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_s[:, :], A[0:32, 2:34])
    T.cuda.cta_sync()
    Tx.warp.copy(B[0:32, 2:34], A_s[:, :])
