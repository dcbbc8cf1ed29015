"""Reduction: Tx.cta.sum of a float16 4x8x6 shared tile over its middle axis (axes=1), 32 threads: 24 outputs in groups of 8 lanes, three spatial steps."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_cta_middle_f16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8, 6), "float16", layout=TileLayout(S[(4, 8, 6)]))
    B = T.match_buffer(B_ptr, (4, 6), "float16", layout=TileLayout(S[(4, 6)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_smem = T.alloc_buffer((4, 8, 6), "float16", scope="shared", layout=TileLayout(S[(4, 8, 6)]))
    B_smem = T.alloc_buffer((4, 6), "float16", scope="shared", layout=TileLayout(S[(4, 6)]))
    Tx.cta.copy(A_smem[:, :, :], A[:, :, :])
    T.cuda.cta_sync()
    Tx.cta.sum(B_smem[:, :], A_smem[:, :, :], axes=1)
    Tx.cta.copy(B[:, :], B_smem[:, :])
