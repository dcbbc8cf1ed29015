# Variation: 64B-swizzled fp32 at a warp and 128B-swizzled int8 at a warpgroup.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def f32_64b(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=mma_shared_layout("float32", 2, (32, 32)))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_s[:, :])


@T.prim_func
def i8_128b(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 128), "int8")
    B = T.match_buffer(B_ptr, (64, 128), "int8")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 128), "int8", scope="shared", layout=mma_shared_layout("int8", 3, (64, 128)))
    Tx.wg.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.wg.copy(B[:, :], A_s[:, :])
