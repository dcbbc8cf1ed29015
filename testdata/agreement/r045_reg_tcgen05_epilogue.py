# Row 45: a tcgen05 16x256b accumulator fragment (64x64 fp32) deposited into the
# 128B-swizzled MMA shared layout.
# agreement: row=45
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout

from tvm.tirx.layout import tcgen05_atom_layout


@T.prim_func
def epilogue(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (64, 64)))
    R = T.alloc_buffer((64, 64), "float32", scope="local", layout=tcgen05_atom_layout("16x256b", (64, 64), "float32"))
    Tx.wg.copy(A_s[:, :], R[:, :])
    T.cuda.warpgroup_sync(8)
    Tx.wg.copy(R[:, :], A_s[:, :])
