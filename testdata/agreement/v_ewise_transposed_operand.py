# Variation: add of a row-major and a transposed fp16 tile.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def tpose(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    X_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    Y_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[(32, 32):(1, 32)]))
    Tx.cta.copy(X_s[:, :], A[:, :])
    Tx.cta.copy(Y_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])
