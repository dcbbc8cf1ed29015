# Variation: register fragments: a one-register-per-lane row statistic broadcast
# over a 32x16 fragment, a region bias, a cast into a permuted fp16 fragment;
# elementwise on loop-variable row bands of a swizzled tile; a fallback copy at
# loop-variable offsets.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def row_stat(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 16), "float32")
    B = T.match_buffer(B_ptr, (32, 1), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 16), "float32", scope="local", layout=TileLayout(S[(32, 16):(1 @ laneid, 1)]))
    C = T.alloc_buffer((32, 1), "float32", scope="local", layout=TileLayout(S[(32, 1):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.copy(C[:, :], B[:, :])
    Tx.warp.add(R[:, :], R[:, :], C[:, :])
    Tx.warp.exp(R[:, :], R[:, :], bias=R[:, :], scale=T.float32(0.5))
    Tx.warp.copy(A[:, :], R[:, :])


@T.prim_func
def cast_perm(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))
    H = T.alloc_buffer((32, 8), "float16", scope="local", layout=TileLayout(S[(32, 4, 2):(1 @ laneid, 1, 4)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.cast(H[:, :], R[:, :])
    Tx.warp.cast(R[:, :], H[:, :])
    Tx.warp.copy(A[:, :], R[:, :])


@T.prim_func
def band_exp(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    for i in range(4):
        Tx.cta.exp(A_s[i * 16:i * 16 + 16, :], A_s[i * 16:i * 16 + 16, :])
    Tx.cta.copy(A[:, :], A_s[:, :])


@T.prim_func
def fallback_loop(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (12, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 6), "float32", scope="shared")
    for i in range(3):
        Tx.warp.copy(A_s[:, :], A[i * 4:i * 4 + 4, :])
        T.cuda.warp_sync()
        Tx.warp.copy(A[i * 4:i * 4 + 4, :], A_s[:, :])
        T.cuda.warp_sync()
