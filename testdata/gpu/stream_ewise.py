# Streaming elementwise op for the bandwidth check (scripts/gpu-check):
# B = sqrt(A * 4.0) over 256 MiB of float32, staged through a shared
# 8x1024 tile per CTA (8192 CTAs of 256 threads). The multiply and the
# square root run on the shared tile, 4 elements per thread access.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout

ROWS, COLS, TILE = 65536, 1024, 8


@T.prim_func
def stream_sqrt(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (ROWS, COLS), "float32", layout=TileLayout(S[ROWS, COLS]))
    B = T.match_buffer(B_ptr, (ROWS, COLS), "float32", layout=TileLayout(S[ROWS, COLS]))
    T.device_entry()
    bx = T.cta_id([ROWS // TILE])
    T.thread_id([256])
    A_s = T.alloc_buffer((TILE, COLS), "float32", scope="shared", layout=TileLayout(S[TILE, COLS]))
    Tx.cta.copy(A_s[:, :], A[bx * TILE:bx * TILE + TILE, :])
    T.cuda.cta_sync()
    Tx.cta.sqrt(A_s[:, :], A_s[:, :], scale=T.float32(4.0))
    Tx.cta.copy(B[bx * TILE:bx * TILE + TILE, :], A_s[:, :])
