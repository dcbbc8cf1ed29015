"""Reduction rejections on shared buffers at cta scope: a float16 dst for a float32 src (dtype mismatch), an axis out of range (axes=2 on a 2-D src), a dst whose size is not the spatial size."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def reject_dtype(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_smem = T.alloc_buffer((4, 8), "float32", scope="shared", layout=TileLayout(S[(4, 8)]))
    B_smem = T.alloc_buffer((4,), "float16", scope="shared", layout=TileLayout(S[4]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    Tx.cta.sum(B_smem[:], A_smem[:, :], axes=-1)


@T.prim_func
def reject_axis(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_smem = T.alloc_buffer((4, 8), "float32", scope="shared", layout=TileLayout(S[(4, 8)]))
    B_smem = T.alloc_buffer((4,), "float32", scope="shared", layout=TileLayout(S[4]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    Tx.cta.max(B_smem[:], A_smem[:, :], axes=2)


@T.prim_func
def reject_dst_size(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_smem = T.alloc_buffer((4, 8), "float32", scope="shared", layout=TileLayout(S[(4, 8)]))
    B_smem = T.alloc_buffer((8,), "float32", scope="shared", layout=TileLayout(S[8]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    Tx.cta.min(B_smem[:], A_smem[:, :], axes=-1)
