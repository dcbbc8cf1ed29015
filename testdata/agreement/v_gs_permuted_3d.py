# Variation: a 3-D shared tile whose two outer dims are swapped.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def perm3(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8, 16), "float16")
    B = T.match_buffer(B_ptr, (4, 8, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    A_s = T.alloc_buffer((4, 8, 16), "float16", scope="shared", layout=TileLayout(S[(4, 8, 16):(16, 64, 1)]))
    Tx.cta.copy(A_s[:, :, :], A[:, :, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :, :], A_s[:, :, :])
