# Variation: fp32 registers into a swizzle with a 2-element chunk (the register
# path's vector cap at the swizzle chunk).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def cap(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 16), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 16), "float32", scope="shared", layout=ComposeLayout(SwizzleLayout(1, 3, 3), TileLayout(S[32, 16])))
    R = T.alloc_buffer((32, 16), "float32", scope="local", layout=TileLayout(S[(32, 16):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.copy(A_s[:, :], R[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(R[:, :], A_s[:, :])
    Tx.warp.copy(A[:, :], R[:, :])
