"""Reduction: Tx.cta.max over the first axis of a 32x32 shared tile (axes=(0,)), 128 threads: strided source reads, one column per group of 32 lanes."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_cta_axes_first(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32", layout=TileLayout(S[(32, 32)]))
    B = T.match_buffer(B_ptr, (32,), "float32", layout=TileLayout(S[32]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[(32, 32)]))
    B_smem = T.alloc_buffer((32,), "float32", scope="shared", layout=TileLayout(S[32]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.max(B_smem[:], A_smem[:, :], axes=(0,))
    Tx.cta.copy(B[:], B_smem[:])
