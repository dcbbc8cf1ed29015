"""Reduction: Tx.cta.max with accum=True on offset regions (src [1:6, 1:9], dst [2:7]) of 32x32 / 32 shared buffers, 128 threads: the old dst value is folded in by the lane-0 store."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_cta_offset_accum(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32", layout=TileLayout(S[(32, 32)]))
    B = T.match_buffer(B_ptr, (32,), "float32", layout=TileLayout(S[32]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[(32, 32)]))
    B_smem = T.alloc_buffer((32,), "float32", scope="shared", layout=TileLayout(S[32]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    Tx.cta.copy(B_smem[:], B[:])
    T.cuda.cta_sync()
    Tx.cta.max(B_smem[2:7], A_smem[1:6, 1:9], axes=-1, accum=True)
    Tx.cta.copy(B[:], B_smem[:])
