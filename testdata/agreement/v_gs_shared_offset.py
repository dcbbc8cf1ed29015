# Variation: the shared side is a region of a bigger tile.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def soff(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float32", scope="shared", layout=TileLayout(S[64, 64]))
    Tx.cta.copy(A_s[16:48, 32:64], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[16:48, 32:64])


@T.prim_func
def soff_odd(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float16")
    B = T.match_buffer(B_ptr, (32, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=TileLayout(S[64, 64]))
    Tx.cta.copy(A_s[16:48, 1:33], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[16:48, 1:33])
