# Shared-memory access patterns with and without bank conflicts, for the
# Nsight Compute comparison of scripts/gpu-check (profile). One warp, a
# 32x32 float32 tile in shared memory; R gives lane t row t of the tile, so
# reading R from shared memory walks a column of banks.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, laneid

ROWS = TileLayout(S[(32, 32):(1 @ laneid, 1)])


@T.prim_func
def column_conflict(A_ptr: T.handle, B_ptr: T.handle):
    # Row stride of 32 words, no swizzle: lane t reads row t, so every
    # lane of an instruction hits the same bank (32-way conflicts).
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    R = T.alloc_buffer((32, 32), "float32", scope="local", layout=ROWS)
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(R[:, :], A_s[:, :])
    Tx.warp.copy(B[:, :], R[:, :])


@T.prim_func
def column_padded(A_ptr: T.handle, B_ptr: T.handle):
    # The same access with a row stride of 36 words (rows stay 16-byte
    # aligned for 128-bit accesses): the 8 lanes of a quarter warp start
    # in banks 0, 4, ..., 28, no conflicts.
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[(32, 32):(36, 1)]))
    R = T.alloc_buffer((32, 32), "float32", scope="local", layout=ROWS)
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(R[:, :], A_s[:, :])
    Tx.warp.copy(B[:, :], R[:, :])


@T.prim_func
def column_swizzled(A_ptr: T.handle, B_ptr: T.handle):
    # The same access through an XOR swizzle of the word index with the
    # row: lane t reads bank (j ^ t), no conflicts.
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=ComposeLayout(0, 5, 5, TileLayout(S[32, 32])))
    R = T.alloc_buffer((32, 32), "float32", scope="local", layout=ROWS)
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(R[:, :], A_s[:, :])
    Tx.warp.copy(B[:, :], R[:, :])


@T.prim_func
def vector_copy(A_ptr: T.handle, B_ptr: T.handle):
    # 128-bit copies: each lane moves four consecutive words, a quarter
    # warp covers 128 contiguous bytes: no conflicts, full sectors.
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(B[:, :], A_s[:, :])


@T.prim_func
def strided_global_read(A_ptr: T.handle, B_ptr: T.handle):
    # Lane t reads row t of a global 32x32 tile straight into registers:
    # each load instruction touches 32 sectors (one 4-byte word of each).
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 32), "float32", scope="local", layout=ROWS)
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[(32, 32):(36, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.copy(A_s[:, :], R[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(B[:, :], A_s[:, :])

# tilels: reference=0.27
