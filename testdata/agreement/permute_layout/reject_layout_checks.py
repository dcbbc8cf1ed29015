"""Rejections after slicing: a stride-0 (aliased) source is not a bijection, a 16-element region is not
a multiple of the warp, 64 elements per lane exceed 32, and src/dst shards that cannot be regrouped."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def reject_alias(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "uint32", layout=TileLayout(S[(4, 32):(0, 1)]))
    B = T.match_buffer(B_ptr, (4, 32), "uint32", layout=TileLayout(S[(4, 32):(1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)


@T.prim_func
def reject_volume(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8), "uint32", layout=TileLayout(S[(4, 8):(8, 1)]))
    B = T.match_buffer(B_ptr, (4, 8), "uint32", layout=TileLayout(S[(4, 8):(1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B[0:2, 0:8], A[0:2, 0:8])


@T.prim_func
def reject_per_lane(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 32), "uint32", layout=TileLayout(S[(64, 32):(32, 1)]))
    B = T.match_buffer(B_ptr, (64, 32), "uint32", layout=TileLayout(S[(64, 32):(1, 64)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B, A)


@T.prim_func
def reject_group(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 6), "uint32", layout=TileLayout(S[(2, 2, 3):(6, 1, 2)]))
    B = T.match_buffer(B_ptr, (2, 6), "uint32", layout=TileLayout(S[(2, 3, 2):(6, 1, 3)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Tx.warp.permute_layout(B[1, 0:6], A[1, 0:6])
