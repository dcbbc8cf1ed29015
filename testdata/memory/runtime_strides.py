# A layout over runtime strides used for its offsets: each thread keeps
# signed strides in registers (+8, +16, +32 halves, negated where its row
# has that bit set, as flash_attention_backward.py's RowiseSwizzleOffset
# does), and (lane & 7) * 8 + apply(c * 8)["m"] is the 16-byte chunk c XOR
# the row's low bits, so that the eight rows a quarter warp stores land in
# different banks. swizzled_rows stores A's rows to shared memory through
# it and reads them back (B is A); plain_rows is the same without the
# swizzle (eight lanes in the same four banks). They load and store
# through the kernel's own T.ptx, which the host reference does not model:
# they were run by a hand-written main that checks B against A and
# profiled with Nsight Compute (lower/testdata/ncu/measured.txt).
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def swizzled_rows(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 64), "float16")
    B = T.match_buffer(B_ptr, (32, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    lane = T.thread_id([32])
    S_s = T.alloc_buffer((32, 64), "float16", scope="shared")
    st = T.alloc_local((3,), "int32")
    for i in T.unroll(3):
        st[i] = T.Select(lane & (1 << i) > 0, -(1 << (i + 3)), 1 << (i + 3))
    sw = TileLayout(S[(2, 2, 2, 8) : [st[2], st[1], st[0], 0]])
    w = T.alloc_local((4,), "uint32")
    for c in T.unroll(8):
        col = T.meta_var((lane & 7) * 8 + sw.apply(c * 8)["m"])
        T.ptx.ld.global_.v4.u32(w[0], w[1], w[2], w[3], T.handle_add_byte_offset(A.data, (lane * 64 + c * 8) * 2))
        T.ptx.st.shared.v4.u32(T.ptr_byte_offset(S_s.data, (lane * 64 + col) * 2, "uint32"), w[0], w[1], w[2], w[3])
    T.cuda.warp_sync()
    for c in T.unroll(8):
        col = T.meta_var((lane & 7) * 8 + sw.apply(c * 8)["m"])
        T.ptx.ld.shared.v4.u32(w[0], w[1], w[2], w[3], T.ptr_byte_offset(S_s.data, (lane * 64 + col) * 2, "uint32"))
        T.ptx.st.global_.v4.u32(T.handle_add_byte_offset(B.data, (lane * 64 + c * 8) * 2), w[0], w[1], w[2], w[3])


@T.prim_func
def plain_rows(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 64), "float16")
    B = T.match_buffer(B_ptr, (32, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    lane = T.thread_id([32])
    S_s = T.alloc_buffer((32, 64), "float16", scope="shared")
    w = T.alloc_local((4,), "uint32")
    for c in T.unroll(8):
        T.ptx.ld.global_.v4.u32(w[0], w[1], w[2], w[3], T.handle_add_byte_offset(A.data, (lane * 64 + c * 8) * 2))
        T.ptx.st.shared.v4.u32(T.ptr_byte_offset(S_s.data, (lane * 64 + c * 8) * 2, "uint32"), w[0], w[1], w[2], w[3])
    T.cuda.warp_sync()
    for c in T.unroll(8):
        T.ptx.ld.shared.v4.u32(w[0], w[1], w[2], w[3], T.ptr_byte_offset(S_s.data, (lane * 64 + c * 8) * 2, "uint32"))
        T.ptx.st.global_.v4.u32(T.handle_add_byte_offset(B.data, (lane * 64 + c * 8) * 2), w[0], w[1], w[2], w[3])
# tilels: reference=0.27
