# Variation: m16n8k16-style fp16 register fragments through ldmatrix/stmatrix.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def frag(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((16, 32), "float16", scope="shared")
    a = T.alloc_buffer((16, 32), "float16", scope="local", layout=TileLayout(S[(2, 8, 4, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(a[:, :], A_s[:, :])
    Tx.warp.copy(A_s[:, :], a[:, :])
