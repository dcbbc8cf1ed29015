# Variation: region starts that depend on a loop variable (copy, registers,
# elementwise, cp.async).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def tiles(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 64), "float16", scope="shared")
    R = T.alloc_buffer((32, 16), "float16", scope="local", layout=TileLayout(S[(32, 16):(1 @ laneid, 1)]))
    for i in range(4):
        Tx.warp.copy(A_s[:, :], A[i * 32:i * 32 + 32, :])
        T.cuda.warp_sync()
        for j in range(4):
            Tx.warp.copy(R[:, :], A_s[:, j * 16:j * 16 + 16])
            Tx.warp.copy(A[i * 32:i * 32 + 32, j * 16:j * 16 + 16], R[:, :])


@T.prim_func
def ewise_rows(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float32", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    for k in range(4):
        Tx.cta.mul(A_s[k * 16:k * 16 + 16, :], A_s[k * 16:k * 16 + 16, :], T.float32(2.0))
    Tx.cta.copy(A[:, :], A_s[:, :])


@T.prim_func
def async_rows(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    for k in range(4):
        Tx.cta.copy_async(A_s[:, :], A[k * 64:k * 64 + 64, :])
        T.ptx.cp_async.commit_group()
        T.ptx.cp_async.wait_group(0)
        T.cuda.cta_sync()
        Tx.cta.copy(A[k * 64:k * 64 + 64, :], A_s[:, :])
