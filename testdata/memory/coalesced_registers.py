# The layouts tilels' perf/uncoalesced quick fix gives a register tile
# that held one row per thread (lower/perf_coalesce.go), for the Nsight
# Compute comparison of scripts/gpu-check: neighbouring lanes hold
# neighbouring 16-byte pieces of the rows, so every warp-wide access of
# the global tile is one contiguous run. The unfixed programs are
# lower/testdata/mem_rows_cols.txtar (`row`) and reg_copy_wg_cta.txtar
# (`cta_regs`'s H_r and F_r).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid, tx


@T.prim_func
def warp_rows(A_ptr: T.handle, B_ptr: T.handle):
    # mem_rows_cols's row tile, fixed: 256 -> 128 global store sectors,
    # and the read of A_s into it without bank conflicts
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    row = T.alloc_buffer((32, 32), "float32", scope="local", layout=TileLayout(S[(8, 4, 8, 4):(4, 8 @ laneid, 1 @ laneid, 1)]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(row[:, :], A_s[:, :])
    Tx.warp.copy(B[:, :], row[:, :])


@T.prim_func
def cta_rows(F_ptr: T.handle, H_ptr: T.handle):
    # cta_regs's F_r and H_r, fixed: each copy 512 -> 256 global sectors
    F = T.match_buffer(F_ptr, (256, 8), "float32")
    H = T.match_buffer(H_ptr, (256, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([256])
    F_s = T.alloc_buffer((256, 8), "float32", scope="shared")
    F_r = T.alloc_buffer((256, 8), "float32", scope="local", layout=TileLayout(S[(2, 128, 2, 4):(4, 2 @ tx, 1 @ tx, 1)]))
    H_r = T.alloc_buffer((256, 16), "float16", scope="local", layout=TileLayout(S[(2, 128, 2, 8):(8, 2 @ tx, 1 @ tx, 1)]))
    Tx.cta.copy(F_s[:, :], F[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(F_r[:, :], F_s[:, :])
    Tx.cta.copy(H_r[:, :], H[:, :])
    Tx.cta.copy(F[:, :], F_r[:, :])
    Tx.cta.copy(H[:, :], H_r[:, :])
# tilels: reference=0.27
