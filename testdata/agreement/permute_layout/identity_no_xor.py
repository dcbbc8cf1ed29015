"""Identical layouts (TVM test_identity_passes_through_as_copy): both phases are conflict-free with k=0,
so the lowering is a plain register-staged copy with no XOR term; B has no layout (row-major default)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def identity(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "uint32", layout=TileLayout(S[(4, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (4, 32), "uint32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B[:, :], A[:, :])
