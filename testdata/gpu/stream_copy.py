# Streaming copy for the bandwidth check (scripts/gpu-check): 256 MiB of
# float32 from global to shared to global, one 8x1024 tile per CTA (8192
# CTAs of 256 threads, 32 KiB of shared memory each). Each thread moves
# 32 elements with 16-byte accesses in both directions.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout

ROWS, COLS, TILE = 65536, 1024, 8


@T.prim_func
def stream_copy(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (ROWS, COLS), "float32", layout=TileLayout(S[ROWS, COLS]))
    B = T.match_buffer(B_ptr, (ROWS, COLS), "float32", layout=TileLayout(S[ROWS, COLS]))
    T.device_entry()
    bx = T.cta_id([ROWS // TILE])
    T.thread_id([256])
    A_s = T.alloc_buffer((TILE, COLS), "float32", scope="shared", layout=TileLayout(S[TILE, COLS]))
    Tx.cta.copy(A_s[:, :], A[bx * TILE:bx * TILE + TILE, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[bx * TILE:bx * TILE + TILE, :], A_s[:, :])
