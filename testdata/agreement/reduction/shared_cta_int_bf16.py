"""Reduction: Tx.cta.max of a bfloat16 8x16 shared tile over its last axis and Tx.cta.sum of an int32 one over its first axis, 64 threads (shared variant: bfloat16 -max identity, integer zero identity)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def shared_cta_int_bf16(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 16), "bfloat16", layout=TileLayout(S[(8, 16)]))
    B = T.match_buffer(B_ptr, (8,), "bfloat16", layout=TileLayout(S[8]))
    C = T.match_buffer(C_ptr, (8, 16), "int32", layout=TileLayout(S[(8, 16)]))
    D = T.match_buffer(D_ptr, (16,), "int32", layout=TileLayout(S[16]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([64])
    A_smem = T.alloc_buffer((8, 16), "bfloat16", scope="shared", layout=TileLayout(S[(8, 16)]))
    B_smem = T.alloc_buffer((8,), "bfloat16", scope="shared", layout=TileLayout(S[8]))
    C_smem = T.alloc_buffer((8, 16), "int32", scope="shared", layout=TileLayout(S[(8, 16)]))
    D_smem = T.alloc_buffer((16,), "int32", scope="shared", layout=TileLayout(S[16]))
    Tx.cta.copy(A_smem[:, :], A[:, :])
    Tx.cta.copy(C_smem[:, :], C[:, :])
    T.cuda.cta_sync()
    Tx.cta.max(B_smem[:], A_smem[:, :], axes=-1)
    Tx.cta.sum(D_smem[:], C_smem[:, :], axes=0)
    Tx.cta.copy(B[:], B_smem[:])
    Tx.cta.copy(D[:], D_smem[:])
