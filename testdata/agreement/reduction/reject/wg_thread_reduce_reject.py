"""Reduction rejection: Tx.wg.sum with thread_reduce=True on warpgroup registers; the local variant rejects it (shuffles are warp-scope only) and no other variant applies."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, wg_local_layout


@T.prim_func
def reject_wg_thread_reduce(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 16), "float32", layout=TileLayout(S[(128, 16)]))
    B = T.match_buffer(B_ptr, (128, 1), "float32", layout=TileLayout(S[(128, 1)]))
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    tid = T.thread_id_in_wg([128])
    src = T.alloc_buffer((128, 16), "float32", scope="local", layout=wg_local_layout(16))
    dst = T.alloc_buffer((128, 1), "float32", scope="local", layout=wg_local_layout(1))
    src_local = src.local(16)
    for i in T.serial(16):
        src_local[i] = A[tid, i]
    Tx.wg.sum(dst, src, axes=-1, thread_reduce=True)
    dst_local = dst.local(1)
    B[tid, 0] = dst_local[0]
