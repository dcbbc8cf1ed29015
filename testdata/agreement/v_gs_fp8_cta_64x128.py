# Variation: fp8 (e5m2 and e4m3) at cta scope, 128 threads, 64x128.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def fp8_e5m2(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 128), "float8_e5m2")
    B = T.match_buffer(B_ptr, (64, 128), "float8_e5m2")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 128), "float8_e5m2", scope="shared", layout=TileLayout(S[64, 128]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def fp8_e4m3(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 128), "float8_e4m3fn")
    B = T.match_buffer(B_ptr, (64, 128), "float8_e4m3fn")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 128), "float8_e4m3fn", scope="shared", layout=TileLayout(S[64, 128]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])
