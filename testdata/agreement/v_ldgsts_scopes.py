# Variation: cp.async (ldgsts) at warp, warpgroup, cta and thread scope.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def warp_f32(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy_async(A_s[:, :], A[:, :])
    T.ptx.cp_async.commit_group()
    T.ptx.cp_async.wait_group(0)
    T.cuda.cta_sync()
    Tx.warp.copy(A[:, :], A_s[:, :])


@T.prim_func
def wg_bf16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 64), "bfloat16", scope="shared", layout=TileLayout(S[128, 64]))
    Tx.wg.copy_async(A_s[:, :], A[:, :])
    T.ptx.cp_async.commit_group()
    T.ptx.cp_async.wait_group(0)
    T.cuda.cta_sync()
    Tx.wg.copy(A[:, :], A_s[:, :])


@T.prim_func
def cta_i8(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "int8")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([8])
    T.lane_id([32])
    T.thread_id([256])
    A_s = T.alloc_buffer((64, 64), "int8", scope="shared", layout=TileLayout(S[64, 64]))
    Tx.cta.copy_async(A_s[:, :], A[:, :])
    T.ptx.cp_async.commit_group()
    T.ptx.cp_async.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(A[:, :], A_s[:, :])


@T.prim_func
def thread_f16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 8), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((8, 8), "float16", scope="shared", layout=TileLayout(S[8, 8]))
    Tx.thread.copy_async(A_s[:, :], A[:, :])
    T.ptx.cp_async.commit_group()
    T.ptx.cp_async.wait_group(0)
    T.cuda.cta_sync()
    Tx.thread.copy(A[:, :], A_s[:, :])
