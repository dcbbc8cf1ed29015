# Branches and loops the memory analysis cannot decide (a branch on data
# read from memory, a loop bound passed at run time) whose code counts no
# memory instruction whichever way it runs: perf/memory taints what they
# write and counts the rest of the kernel (inert.go's quiet code), where
# it said "unknown" before. The counters of every kernel were measured
# with Nsight Compute (lower/testdata/ncu/measured.txt).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def float_branch(A_ptr: T.handle, B_ptr: T.handle):
    # a branch on a floating-point value read from global memory
    A = T.match_buffer(A_ptr, (4, 128), "float32")
    B = T.match_buffer(B_ptr, (4, 128), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_buffer((4, 128), "float32", scope="shared")
    r = T.alloc_buffer((4,), "float32", scope="local")
    for i in T.unroll(4):
        r[i] = A[i, tid]
    if r[0] > T.float32(0.5):
        for i in T.unroll(4):
            r[i] = r[i] * T.float32(2.0)
    for i in T.unroll(4):
        S[i, tid] = r[i]
    T.cuda.cta_sync()
    for i in T.unroll(4):
        B[i, tid] = S[i, (tid + 32) % 128]


@T.prim_func
def runtime_bound(A_ptr: T.handle, B_ptr: T.handle, n: T.int32):
    # a loop whose bound is a kernel parameter, over registers only
    A = T.match_buffer(A_ptr, (2, 64), "float32")
    B = T.match_buffer(B_ptr, (2, 64), "float32")
    T.device_entry()
    T.cta_id([2])
    tid = T.thread_id([64])
    r = T.alloc_buffer((1,), "float32", scope="local")
    r[0] = A[0, tid]
    for k in T.serial(n):
        r[0] = r[0] * T.float32(0.5) + T.float32(1.0)
    B[1, tid] = r[0]


@T.prim_func
def int_data_branch(I_ptr: T.handle, A_ptr: T.handle, B_ptr: T.handle):
    # a branch on an integer read from global memory, around a register
    # update, between two copies through shared memory
    I = T.match_buffer(I_ptr, (64,), "int32")
    A = T.match_buffer(A_ptr, (64, 32), "float32")
    B = T.match_buffer(B_ptr, (64, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    S = T.alloc_buffer((64, 32), "float32", scope="shared")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    Tx.cta.copy(S[:, :], A[:, :])
    T.cuda.cta_sync()
    acc[0] = S[tid, 0]
    if I[tid] > 3:
        acc[0] = acc[0] + T.float32(1.0)
    S[tid, 1] = acc[0]
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], S[:, :])


# tilels: reference=0.27
