# tilels-test: arch=sm_100a
# A view at a runtime offset inside its swizzle (FlashMLA's prefill
# gathers): Buffer.tile picks this warp's rows of a 128B-swizzled tile at a
# runtime index whose stride (4 rows, 256 elements) is not a multiple of
# the swizzle period (8 rows). TVM folds the offset into the swizzled
# tile; the gather4 TMA starts at the view's start, w * 256, and the
# hardware applies the swizzle. 0.25 has no tma_explicit.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gather_warp(G_ptr: T.handle, idx_ptr: T.handle, w: T.int32):
    G = T.match_buffer(G_ptr, (1024, 64), "bfloat16")
    idx = T.match_buffer(idx_ptr, (4,), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "bfloat16", scope="shared.dyn", layout=mma_shared_layout("bfloat16", 3, (64, 64)))
    bar = T.alloc_buffer((2,), "uint64", scope="shared")
    A_w = A_s.tile((0, (-1, 4, 4)))[:, w, :]
    if tid == 0:
        Tx.copy_async(A_w[0:4, :], G[0:1, 0:64], dispatch="tma_explicit", mbar=bar.ptr_to([1]), gather4=[idx[0], idx[1], idx[2], idx[3]])
        Tx.copy_async(A_w[4:8, :], G[0:1, 0:64], dispatch="tma_explicit", mbar=bar.ptr_to([1]), gather4=[idx[0], idx[1], idx[2], idx[3]])
