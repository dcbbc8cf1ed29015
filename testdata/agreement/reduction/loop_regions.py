"""Reduction: calls in a loop over row blocks (symbolic region starts): a Tx.cta.sum of 4 rows of a dynamic-shared tile per iteration (64 threads, groups of 16 lanes) and a thread-scope Tx.max of one register row per iteration with accum=True."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def loop_regions(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 16), "float32", layout=TileLayout(S[(8, 16)]))
    B = T.match_buffer(B_ptr, (8,), "float32", layout=TileLayout(S[8]))
    C = T.match_buffer(C_ptr, (64, 4), "float32", layout=TileLayout(S[(64, 4)]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    pool = T.SMEMPool()
    A_smem = pool.alloc((8, 16), "float32", layout=TileLayout(S[(8, 16)]))
    B_smem = pool.alloc((8,), "float32", layout=TileLayout(S[8]))
    pool.commit()
    Tx.cta.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    for i in T.serial(2):
        Tx.cta.sum(B_smem[i * 4:i * 4 + 4], A_smem[i * 4:i * 4 + 4, :], axes=-1)
    Tx.cta.copy(B[:], B_smem[:])
    R = T.alloc_buffer((4, 4), "float32", scope="local")
    M = T.alloc_buffer((4,), "float32", scope="local")
    for j in T.serial(4):
        M[j] = T.float32(1.0)
        for k in T.serial(4):
            R[j, k] = C[tid, k] * T.float32(j + 1)
    for j in T.serial(4):
        Tx.max(M[j:j + 1], R[j:j + 1, :], axes=-1, accum=True)
    for j in T.serial(4):
        C[tid, j] = M[j]
