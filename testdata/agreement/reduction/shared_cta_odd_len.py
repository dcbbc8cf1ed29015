"""Reduction: Tx.cta.min over a non-power-of-two axis (32x7 shared, axes=-1), 32 threads: groups of 8 lanes, the eighth lane of each group reads nothing."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_cta_odd_len(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 7), "float32", layout=TileLayout(S[(32, 7)]))
    B = T.match_buffer(B_ptr, (32,), "float32", layout=TileLayout(S[32]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_smem = T.alloc_buffer((32, 7), "float32", scope="shared", layout=TileLayout(S[(32, 7)]))
    B_smem = T.alloc_buffer((32,), "float32", scope="shared", layout=TileLayout(S[32]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.min(B_smem[:], A_smem[:, :], axes=-1)
    Tx.cta.copy(B[:], B_smem[:])
