# Pointers a kernel offsets by bytes (T.ptr_byte_offset, a typed pointer,
# and T.handle_add_byte_offset, a void*: tirx.ptr_byte_offset and
# tirx.handle_add_byte_offset of TVM 0.27, which flash_attention_backward.py
# and paged_mqa_logits_fp4.py store and read shared memory through): the
# memory analysis follows them to the bytes they address, the CUDA is TVM's
# ((T*)(((char*)data) + off)). The host reference does not model a
# kernel's own T.ptx loads and stores, so scripts/gpu-check does not run
# the first two: they were run on an H200 by a hand-written main that
# checks B against A, and profiled with Nsight Compute; byte_offset_view,
# tile calls through a view on such a pointer, by scripts/gpu-check
# (lower/testdata/ncu/measured.txt).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def byte_offsets(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    w = T.alloc_local((4,), "uint32")
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    for r in range(8):
        # the lane's 16 bytes of rows 4r to 4r + 3, eight lanes a row
        T.ptx.ld.shared.v4.u32(w[0], w[1], w[2], w[3], T.ptr_byte_offset(A_s.data, (r * 4 + lane // 8) * 128 + lane % 8 * 16, "uint32"))
        T.ptx.st.global_.v4.u32(T.handle_add_byte_offset(B.data, (r * 4 + lane // 8) * 128 + lane % 8 * 16), w[0], w[1], w[2], w[3])


@T.prim_func
def column_offsets(A_ptr: T.handle, B_ptr: T.handle):
    # the same through a column of A_s: lane t reads 16 bytes of row t,
    # all 32 lanes in the same four banks (32 wavefronts an instruction
    # where 4 would do), and stores them to row t of B (32 sectors a
    # request where 16 would do)
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    w = T.alloc_local((4,), "uint32")
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    for c in range(8):
        T.ptx.ld.shared.v4.u32(w[0], w[1], w[2], w[3], T.ptr_byte_offset(A_s.data, lane * 128 + c * 16, "uint32"))
        T.ptx.st.global_.v4.u32(T.handle_add_byte_offset(B.data, lane * 128 + c * 16), w[0], w[1], w[2], w[3])


@T.prim_func
def byte_offset_view(A_ptr: T.handle, B_ptr: T.handle):
    # a typed view of the lower half of A_s at a byte offset (as
    # paged_mqa_logits_fp4.py views its stages), copied by tile calls
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (16, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    low = T.decl_buffer((16, 32), "float32", data=T.ptr_byte_offset(A_s.data, 16 * 128, "float32"), scope="shared")
    Tx.warp.copy(B[:, :], low[:, :])
# tilels: reference=0.27
