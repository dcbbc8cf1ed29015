# Grids of more than 64 CTAs (perf/memory counts every CTA of a smaller
# one). When the lowered code proves every CTA a translation of the one a
# period before it (1, or the cluster's size), the analysis executes one
# period of CTAs and counts the others by residue: exact. When the CTAs
# run a loop different numbers of times, it executes one CTA of each
# number (`uneven_persistent`), or, for more than three, three of them
# and counts the others from the figures' growth per iteration
# (`causal_blocks`, and `causal_tiles`, whose loop's trips a register
# gives); all three are estimates ("scaled": true in --emit json)
# that these kernels' measurements match; when the three do not grow by
# the same amount with each iteration, every class of at most eight
# (`growing_blocks`). Otherwise it multiplies CTA 0 by the CTA count:
# `many_growing_blocks`, of 16 classes whose iterations differ, is
# over-counted by design.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def translated(A_ptr: T.handle, B_ptr: T.handle):
    # a tile per CTA: every CTA is CTA 0 moved by 512 bytes
    A = T.match_buffer(A_ptr, (1024, 32), "float32")
    B = T.match_buffer(B_ptr, (1024, 32), "float32")
    T.device_entry()
    bx = T.cta_id([256])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[4, 32]))
    Tx.warp.copy(A_s[0:4, 0:32], A[bx * 4 : bx * 4 + 4, 0:32])
    T.cuda.cta_sync()
    Tx.warp.copy(B[bx * 4 : bx * 4 + 4, 0:32], A_s[0:4, 0:32])


@T.prim_func
def cluster_leader(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    # the leader of each pair of CTAs copies four more tiles, from C to
    # D: CTA 0 times 256 counts them 256 times, the launch copies them 128
    # times
    A = T.match_buffer(A_ptr, (1024, 32), "float32")
    B = T.match_buffer(B_ptr, (1024, 32), "float32")
    C = T.match_buffer(C_ptr, (4096, 32), "float32")
    D = T.match_buffer(D_ptr, (4096, 32), "float32")
    T.device_entry()
    rank = T.cta_id_in_cluster([2])
    bx = T.cta_id([256])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[4, 32]))
    C_s = T.alloc_buffer((16, 32), "float32", scope="shared", layout=TileLayout(S[16, 32]))
    Tx.warp.copy(A_s[0:4, 0:32], A[bx * 4 : bx * 4 + 4, 0:32])
    T.cuda.cta_sync()
    Tx.warp.copy(B[bx * 4 : bx * 4 + 4, 0:32], A_s[0:4, 0:32])
    if rank == 0:
        # (a branch in the machine code too: nvcc predicates the loads
        # and stores of a short branch before the barrier, and Nsight
        # counts a predicated-off STS as an instruction)
        Tx.warp.copy(C_s[0:16, 0:32], C[bx * 16 : bx * 16 + 16, 0:32])
        T.cuda.cta_sync()
        Tx.warp.copy(D[bx * 16 : bx * 16 + 16, 0:32], C_s[0:16, 0:32])


@T.prim_func
def even_persistent(A_ptr: T.handle, B_ptr: T.handle):
    # a persistent loop over 256 tiles in 128 CTAs: two tiles in every CTA
    A = T.match_buffer(A_ptr, (1024, 32), "float32")
    B = T.match_buffer(B_ptr, (1024, 32), "float32")
    T.device_entry()
    bx = T.cta_id([128])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[4, 32]))
    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx
    while r[0] < 256:
        Tx.warp.copy(A_s[0:4, 0:32], A[r[0] * 4 : r[0] * 4 + 4, 0:32])
        T.cuda.cta_sync()
        Tx.warp.copy(B[r[0] * 4 : r[0] * 4 + 4, 0:32], A_s[0:4, 0:32])
        T.cuda.cta_sync()
        r[0] = r[0] + 128


@T.prim_func
def uneven_persistent(A_ptr: T.handle, B_ptr: T.handle):
    # 300 tiles over 256 CTAs: CTAs 0 to 43 run two, the others one;
    # CTAs 0 and 44 executed, each counted for its 44 and 212
    A = T.match_buffer(A_ptr, (1200, 32), "float32")
    B = T.match_buffer(B_ptr, (1200, 32), "float32")
    T.device_entry()
    bx = T.cta_id([256])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[4, 32]))
    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx
    while r[0] < 300:
        Tx.warp.copy(A_s[0:4, 0:32], A[r[0] * 4 : r[0] * 4 + 4, 0:32])
        T.cuda.cta_sync()
        Tx.warp.copy(B[r[0] * 4 : r[0] * 4 + 4, 0:32], A_s[0:4, 0:32])
        T.cuda.cta_sync()
        r[0] = r[0] + 256


@T.prim_func
def causal_blocks(A_ptr: T.handle, B_ptr: T.handle):
    # a loop over fewer blocks in later CTAs (a causal kernel's): 4, 3, 2
    # and 1 tiles in the quarters of the grid, 640 in all; CTAs 0, 192
    # and 128 executed, one tile's figures more for each iteration
    A = T.match_buffer(A_ptr, (4096, 32), "float32")
    B = T.match_buffer(B_ptr, (4096, 32), "float32")
    T.device_entry()
    bx = T.cta_id([256])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[4, 32]))
    for i in T.serial(4 - bx // 64):
        Tx.warp.copy(A_s[0:4, 0:32], A[(i * 256 + bx) * 4 : (i * 256 + bx) * 4 + 4, 0:32])
        T.cuda.cta_sync()
        Tx.warp.copy(B[(i * 256 + bx) * 4 : (i * 256 + bx) * 4 + 4, 0:32], A_s[0:4, 0:32])
        T.cuda.cta_sync()


@T.prim_func
def causal_tiles(A_ptr: T.handle, B_ptr: T.handle):
    # one tile per CTA (a longest-first schedule's, flash_attention4.py's
    # causal cases) over as many blocks as a register set from the CTA's
    # index says: the tile loop runs once in every CTA, the block loop 4,
    # 3, 2 and 1 times in the quarters of the grid, read through the
    # register and a scalar; counted as causal_blocks
    A = T.match_buffer(A_ptr, (4096, 32), "float32")
    B = T.match_buffer(B_ptr, (4096, 32), "float32")
    T.device_entry()
    bx = T.cta_id([256])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[4, 32]))
    m_block = T.alloc_buffer((1,), "int32", scope="local")
    task = T.alloc_buffer((1,), "int32", scope="local")
    task[0] = bx
    m_block[0] = 3 - bx // 64
    while task[0] < 256:
        n_blocks: T.int32 = m_block[0] + 1
        for i in T.serial(n_blocks):
            Tx.warp.copy(A_s[0:4, 0:32], A[(i * 256 + bx) * 4 : (i * 256 + bx) * 4 + 4, 0:32])
            T.cuda.cta_sync()
            Tx.warp.copy(B[(i * 256 + bx) * 4 : (i * 256 + bx) * 4 + 4, 0:32], A_s[0:4, 0:32])
            T.cuda.cta_sync()
        task[0] = 256


@T.prim_func
def growing_blocks(A_ptr: T.handle, B_ptr: T.handle):
    # causal_blocks whose iteration i copies i + 1 tiles: a CTA that runs
    # the loop t times copies t (t + 1) / 2, 10, 6, 3 and 1 in the
    # quarters of the grid; the figures do not grow by the same amount
    # with each iteration, so the four classes are all executed
    A = T.match_buffer(A_ptr, (4096, 32), "float32")
    B = T.match_buffer(B_ptr, (4096, 32), "float32")
    T.device_entry()
    bx = T.cta_id([256])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[4, 32]))
    for i in T.serial(4 - bx // 64):
        for j in T.serial(i + 1):
            Tx.warp.copy(A_s[0:4, 0:32], A[(j * 256 + bx) * 4 : (j * 256 + bx) * 4 + 4, 0:32])
            T.cuda.cta_sync()
            Tx.warp.copy(B[(j * 256 + bx) * 4 : (j * 256 + bx) * 4 + 4, 0:32], A_s[0:4, 0:32])
            T.cuda.cta_sync()


@T.prim_func
def many_growing_blocks(A_ptr: T.handle, B_ptr: T.handle):
    # growing_blocks over 16 classes of 16 CTAs (16 down to 1
    # iterations), more than the analysis executes: counted as CTA 0 (136
    # tiles) times 256, an estimate; the launch copies 13,056
    A = T.match_buffer(A_ptr, (16384, 32), "float32")
    B = T.match_buffer(B_ptr, (16384, 32), "float32")
    T.device_entry()
    bx = T.cta_id([256])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 32), "float32", scope="shared", layout=TileLayout(S[4, 32]))
    for i in T.serial(16 - bx // 16):
        for j in T.serial(i + 1):
            Tx.warp.copy(A_s[0:4, 0:32], A[(j * 256 + bx) * 4 : (j * 256 + bx) * 4 + 4, 0:32])
            T.cuda.cta_sync()
            Tx.warp.copy(B[(j * 256 + bx) * 4 : (j * 256 + bx) * 4 + 4, 0:32], A_s[0:4, 0:32])
            T.cuda.cta_sync()

# tilels: reference=0.27
