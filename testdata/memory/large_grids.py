# Grids of more than 64 CTAs (perf/memory counts every CTA of a smaller
# one). When the lowered code proves every CTA a translation of the one a
# period before it (1, or the cluster's size), the analysis executes one
# period of CTAs and counts the others by residue: exact. Otherwise it
# multiplies CTA 0 by the CTA count and says so ("scaled": true in
# --emit json): `uneven_persistent`, whose first CTAs run two tiles and
# the others one, is over-counted by design.
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
    # counted as CTA 0 (two tiles) times 256, an estimate
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

# tilels: reference=0.27
