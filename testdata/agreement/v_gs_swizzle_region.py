# Variation: regions of swizzled tiles: a row band and a column band.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def rows(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 64), "float16")
    B = T.match_buffer(B_ptr, (16, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (32, 64)))
    Tx.warp.copy(A_s[8:24, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_s[8:24, :])


@T.prim_func
def cols(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 64), "float16")
    B = T.match_buffer(B_ptr, (32, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    A_s = T.alloc_buffer((32, 256), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (32, 256)))
    Tx.cta.copy(A_s[:, 64:128], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, 64:128])


@T.prim_func
def thread_cols(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 64), "float32")
    B = T.match_buffer(B_ptr, (8, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((8, 128), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (8, 128)))
    Tx.thread.copy(A_s[:, 32:96], A[:, :])
    T.cuda.cta_sync()
    Tx.thread.copy(B[:, :], A_s[:, 32:96])
