"""Rejection: swizzled MMA smem tiles (ComposeLayout) are not plain TileLayouts (TVM
test_reject_swizzle_layout). An in-place permute out of a 128B-swizzled float32 tile fails with
"src buffer's layout is not a plain TileLayout"; into one, with "dst buffer's layout is not a plain
TileLayout"."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def reject_swizzled_src(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 32), "float32")
    B = T.match_buffer(B_ptr, (8, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    pool = T.alloc_buffer((256,), "float32", scope="shared")
    S_mma = T.decl_buffer((8, 32), "float32", pool.data, scope="shared", layout=mma_shared_layout("float32", 3, (8, 32)))
    S_tr = T.decl_buffer((8, 32), "float32", pool.data, scope="shared", layout=TileLayout(S[(8, 32):(1, 8)]))
    Tx.warp.copy(S_mma[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.permute_layout(S_tr[:, :], S_mma[:, :])
    Tx.warp.copy(B[:, :], S_tr[:, :])


@T.prim_func
def reject_swizzled_dst(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "uint32", layout=TileLayout(S[(4, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (4, 32), "uint32", layout=ComposeLayout(SwizzleLayout(2, 2, 4), TileLayout(S[(4, 32):(32, 1)])))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)
