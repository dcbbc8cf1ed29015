# Indices computed by warp intrinsics: shuffles, __any_sync and special
# registers. perf/memory computes them from their operands' lanes
# (shuffle.go); the counters of every kernel were measured with Nsight
# Compute (lower/testdata/ncu/measured.txt).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def shfl_warp_index(A_ptr: T.handle, B_ptr: T.handle):
    # warp w stores at a stride of w + 1 words: 1, 2, 1 and 4 wavefronts
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_buffer((4096,), "float32", scope="shared")
    w = T.cuda.__shfl_sync(T.uint32(0xFFFFFFFF), tid // 32, 0, 32)
    S[(tid % 32) * (w + 1) + w * 1024] = A[tid]
    T.cuda.cta_sync()
    B[tid] = S[tid * 8]


@T.prim_func
def shfl_xor_up(A_ptr: T.handle, B_ptr: T.handle):
    # lane ^ 5 at a stride of 2 words; lane - 1 within segments of 8 at 4
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    S = T.alloc_buffer((4096,), "float32", scope="shared")
    j = T.cuda.__shfl_xor_sync(T.uint32(0xFFFFFFFF), tid % 32, 5, 32)
    u = T.cuda.__shfl_up_sync(T.uint32(0xFFFFFFFF), tid % 32, 1, 8)
    S[j * 2 + tid // 32 * 64] = A[tid]
    # (lane 0 of a segment, whose shfl_up keeps its own value, stores 2
    # words past lane 1's; the second warp 128 words on: no two lanes
    # write one word)
    S[u * 4 + 1024 + T.if_then_else(tid % 8 == 0, 2, 0) + tid // 32 * 128] = A[tid + 64]
    T.cuda.cta_sync()
    B[tid] = S[tid * 3] + S[tid * 4 + 1024]


@T.prim_func
def lane_any_ctaid(A_ptr: T.handle, B_ptr: T.handle):
    # %laneid * 3 words; any_sync(lane == 7) doubles the stride; CTA c
    # reads A from c * 33 floats: 4 sectors in CTA 0, 5 in the others
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    bx = T.cta_id([4])
    tid = T.thread_id([32])
    S = T.alloc_buffer((1024,), "float32", scope="shared")
    l = T.cuda.mov_sreg(32, "laneid")
    a = T.cuda.any_sync(T.uint32(0xFFFFFFFF), tid == 7)
    c = T.cuda.mov_sreg(32, "ctaid.x")
    S[l * 3] = A[c * 33 + tid]
    S[tid * (a + 1) + 512] = A[tid + 256]
    T.cuda.cta_sync()
    B[c * 32 + tid] = S[tid * 3] + S[tid * 2 + 512]


# tilels: reference=0.27
