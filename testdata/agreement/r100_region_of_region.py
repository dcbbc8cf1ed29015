# Row 100: a region subscripted again (nvfp4_gemm.py's epilogue passes reg_all_16b[:, ln:ln+EPI_TILE] to an inline function that copies 16-column slices of it): src[:, 16:32] of A[:, 16:64] is A[:, 32:48], in every release.
# agreement: row=100
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def region_of_region(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    B = T.match_buffer(B_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_s = T.alloc_shared([64, 64], "float32")

    @T.inline
    def copy_cols(src):
        Tx.cta.copy(A_s[:, 0:16], src[:, 16:32])
        Tx.cta.copy(A_s[:, 16:17], src[:, 0])
        Tx.cta.copy(A_s[8:16, 32:40], src[8:16, 40:])

    copy_cols(A[:, 16:64])
    T.cuda.cta_sync()  # the copies above write A_s; every thread reads it below
    Tx.cta.copy(B[:, 0:40], A_s[:, 0:40])
