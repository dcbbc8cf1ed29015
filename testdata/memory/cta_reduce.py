# CTA reductions through shared scratch (T.cuda.cta_sum, cta_max): perf/memory
# executes the shared accesses of the helper codegen prints (ctareduce.go);
# the counters of every kernel were measured with Nsight Compute
# (lower/testdata/ncu/measured.txt).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def cta_sum_rows(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    bx = T.cta_id([2])
    tid = T.thread_id([128])
    scratch = T.alloc_buffer((32,), "float32", scope="shared")
    v = T.cuda.cta_sum(A[bx * 128 + tid], 4, scratch.ptr_to([0]))
    B[bx * 128 + tid] = v


@T.prim_func
def cta_max_2d(A_ptr: T.handle, B_ptr: T.handle):
    # a (32, 8) block, as rmsnorm.py's: the warp is threadIdx.y
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    T.cta_id([1])
    tx, ty = T.thread_id([32, 8])
    scratch = T.alloc_buffer((64,), "float32", scope="shared")
    v = T.cuda.cta_max(A[ty * 32 + tx], 8, scratch.ptr_to([16]))
    B[ty * 32 + tx] = v


# tilels: reference=0.27
