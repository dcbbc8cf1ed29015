"""Rejections of TVM's test file: cta scope ("scope 'cta' is not 'warp'"), dtype mismatch, slice shape
mismatch, and a float16 transpose that no XOR makes bank-free (two lanes share a 4-byte bank)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def reject_cta(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "uint32", layout=TileLayout(S[(4, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (4, 32), "uint32", layout=TileLayout(S[(4, 32):(1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.cta.permute_layout(B, A)


@T.prim_func
def reject_dtype(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "uint32", layout=TileLayout(S[(4, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (4, 32), "uint16", layout=TileLayout(S[(4, 32):(32, 1)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)


@T.prim_func
def reject_shape(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "uint32", layout=TileLayout(S[(4, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (8, 16), "uint32", layout=TileLayout(S[(8, 16):(16, 1)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)


@T.prim_func
def reject_f16_banks(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "float16", layout=TileLayout(S[(4, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (4, 32), "float16", layout=TileLayout(S[(4, 32):(1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)
