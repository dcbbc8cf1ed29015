# A serial loop of four iterations, each storing one float per thread to
# shared memory: nvcc unrolls it and merges the four 32-bit stores into
# one STS.128 per thread, unless the loop carries `#pragma unroll 1`
# (T.serial(..., unroll=False) or the annotation {"disable_unroll": True}),
# which keeps the loop and its four STS (perf/memory: unrolls). The
# counters of every kernel were measured with Nsight Compute
# (lower/testdata/ncu/measured.txt).
from tvm.script import tirx as T


@T.prim_func
def unrolled(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((128,), "float32", scope="shared")
    for i in T.serial(4):
        S[tid * 4 + i] = A[i * 32 + tid]
    T.cuda.cta_sync()
    for i in T.serial(4):
        B[i * 32 + tid] = S[i * 32 + tid]


@T.prim_func
def kept(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((128,), "float32", scope="shared")
    for i in T.serial(4, unroll=False):
        S[tid * 4 + i] = A[i * 32 + tid]
    T.cuda.cta_sync()
    for i in T.serial(4):
        B[i * 32 + tid] = S[i * 32 + tid]


@T.prim_func
def kept_annotated(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((128,), "float32", scope="shared")
    for i in T.serial(4, annotations={"disable_unroll": True}):
        S[tid * 4 + i] = A[i * 32 + tid]
    T.cuda.cta_sync()
    for i in T.serial(4, unroll=False):
        B[i * 32 + tid] = S[i * 32 + tid]


# tilels: reference=0.27
