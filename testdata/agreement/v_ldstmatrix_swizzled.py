# Variation: bf16 fragments from a 128B-swizzled 16x64 tile.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def frag_swz(B_ptr: T.handle):
    B = T.match_buffer(B_ptr, (16, 64), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    B_s = T.alloc_buffer((16, 64), "bfloat16", scope="shared", layout=mma_shared_layout("bfloat16", 3, (16, 64)))
    b = T.alloc_buffer((16, 64), "bfloat16", scope="local", layout=TileLayout(S[(2, 8, 8, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)]))
    Tx.warp.copy(B_s[:, :], B[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(b[:, :], B_s[:, :])
    Tx.warp.copy(B_s[:, :], b[:, :])
