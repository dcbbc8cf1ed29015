from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout

# cp.async under a per-thread predicate, one form per kernel (each copies A
# into a swizzled shared tile and that tile out to B): predicate= alone is
# `@p cp.async`; with fill_mode="zero" it is the src-size form, 16 (or 8)
# bytes read where the predicate holds and 0 where not.


@T.prim_func
def pred_96(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid < 96)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def pred_all(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid >= 0)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def zfill_64(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid < 64, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def zfill_96(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid < 96, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def zfill_all(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid >= 0, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def direct_64(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.thread.copy_async(A_s[tid // 2, tid % 2 * 4:tid % 2 * 4 + 4], A[tid // 2, tid % 2 * 4:tid % 2 * 4 + 4], direct=True, prefetch_size=64, predicate=tid < 64, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def direct_all(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.thread.copy_async(A_s[tid // 2, tid % 2 * 4:tid % 2 * 4 + 4], A[tid // 2, tid % 2 * 4:tid % 2 * 4 + 4], direct=True, prefetch_size=64)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def pred_even(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid % 2 == 0)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def zfill_even(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid % 2 == 0, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def twice(A_ptr: T.handle, B_ptr: T.handle):
    # the same rows copied twice before one wait: a warp's second cp.async
    # of each address
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    C_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :])
    Tx.cta.copy_async(C_s[:, :], A[:, :])
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:32, :], A_s[0:32, :])
    Tx.cta.copy(B[32:64, :], C_s[32:64, :])


@T.prim_func
def twice_waited(A_ptr: T.handle, B_ptr: T.handle):
    # the same, with a wait between the two copies
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    C_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :])
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    Tx.cta.copy_async(C_s[:, :], A[:, :])
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:32, :], A_s[0:32, :])
    Tx.cta.copy(B[32:64, :], C_s[32:64, :])


@T.prim_func
def pred_then_zfill(A_ptr: T.handle, B_ptr: T.handle):
    # the two guarded forms of predicated (ldgsts_predicate_27) over the same rows
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    C_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid < 96)
    Tx.cta.copy_async(C_s[:, :], A[:, :], predicate=tid < 64, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:32, :], A_s[0:32, :])
    Tx.cta.copy(B[32:64, :], C_s[32:64, :])


@T.prim_func
def zfill_then_pred(A_ptr: T.handle, B_ptr: T.handle):
    # the same, the src-size form first
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    C_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid < 64, fill_mode="zero")
    Tx.cta.copy_async(C_s[:, :], A[:, :], predicate=tid < 96)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:32, :], A_s[0:32, :])
    Tx.cta.copy(B[32:64, :], C_s[32:64, :])


@T.prim_func
def zfill_twice(A_ptr: T.handle, B_ptr: T.handle):
    # the src-size form twice, every lane reading
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    C_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid >= 0, fill_mode="zero")
    Tx.cta.copy_async(C_s[:, :], A[:, :], predicate=tid >= 0, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:32, :], A_s[0:32, :])
    Tx.cta.copy(B[32:64, :], C_s[32:64, :])


@T.prim_func
def pred_then_zfill_all(A_ptr: T.handle, B_ptr: T.handle):
    # both forms, every lane reading
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    C_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid >= 0)
    Tx.cta.copy_async(C_s[:, :], A[:, :], predicate=tid >= 0, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:32, :], A_s[0:32, :])
    Tx.cta.copy(B[32:64, :], C_s[32:64, :])


@T.prim_func
def twice_same_dst(A_ptr: T.handle, B_ptr: T.handle):
    # the same rows copied twice into one shared tile before one wait
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :])
    Tx.cta.copy_async(A_s[:, :], A[:, :])
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])


@T.prim_func
def pred_then_zfill_same_dst(A_ptr: T.handle, B_ptr: T.handle):
    # predicated's two guarded forms into one shared tile, as it has them
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, TileLayout(S[64, 64])))
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid < 96)
    Tx.cta.copy_async(A_s[:, :], A[:, :], predicate=tid < 64, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])
# tilels: reference=0.27
