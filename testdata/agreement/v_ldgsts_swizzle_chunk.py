# Variation: cp.async of int8 into swizzles with 4- and 16-byte chunks.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def chunk4(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "int8")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "int8", scope="shared", layout=ComposeLayout(SwizzleLayout(2, 3, 3), TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :])
    T.ptx.cp_async.commit_group()
    T.ptx.cp_async.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(A[:, :], A_s[:, :])


@T.prim_func
def chunk16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 128), "int8")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 128), "int8", scope="shared", layout=mma_shared_layout("int8", 3, (64, 128)))
    Tx.cta.copy_async(A_s[:, :], A[:, :])
    T.ptx.cp_async.commit_group()
    T.ptx.cp_async.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(A[:, :], A_s[:, :])
