# Row 37: warpgroup registers S[(128, 8):(1 @ tid_in_wg, 1)] <-> shared and global.
# agreement: row=37
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def reg_f16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 8), "float16")
    B = T.match_buffer(B_ptr, (128, 8), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 8), "float16", scope="shared", layout=TileLayout(S[128, 8]))
    R = T.alloc_buffer((128, 8), "float16", scope="local", layout=TileLayout(S[(128, 8):(1 @ tid_in_wg, 1)]))
    Tx.wg.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.wg.copy(R[:, :], A_s[:, :])
    Tx.wg.copy(A_s[:, :], R[:, :])
    Tx.wg.copy(R[:, :], A[:, :])
    Tx.wg.copy(B[:, :], R[:, :])


@T.prim_func
def reg_f32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 8), "float32")
    B = T.match_buffer(B_ptr, (128, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 8), "float32", scope="shared", layout=TileLayout(S[128, 8]))
    R = T.alloc_buffer((128, 8), "float32", scope="local", layout=TileLayout(S[(128, 8):(1 @ tid_in_wg, 1)]))
    Tx.wg.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.wg.copy(R[:, :], A_s[:, :])
    Tx.wg.copy(A_s[:, :], R[:, :])
    Tx.wg.copy(R[:, :], A[:, :])
    Tx.wg.copy(B[:, :], R[:, :])


@T.prim_func
def reg_u8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 8), "uint8")
    B = T.match_buffer(B_ptr, (128, 8), "uint8")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 8), "uint8", scope="shared", layout=TileLayout(S[128, 8]))
    R = T.alloc_buffer((128, 8), "uint8", scope="local", layout=TileLayout(S[(128, 8):(1 @ tid_in_wg, 1)]))
    Tx.wg.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.wg.copy(R[:, :], A_s[:, :])
    Tx.wg.copy(A_s[:, :], R[:, :])
    Tx.wg.copy(R[:, :], A[:, :])
    Tx.wg.copy(B[:, :], R[:, :])
