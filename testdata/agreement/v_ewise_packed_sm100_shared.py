# Variation: f32x2 add in shared memory on sm_100a, row-major and transposed.
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def add2(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    X_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    Y_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[(32, 32):(1, 32)]))
    Tx.cta.copy(X_s[:, :], A[:, :])
    Tx.cta.copy(Y_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.add(X_s[:, :], X_s[:, :], X_s[:, :])
    Tx.cta.add(Y_s[:, :], Y_s[:, :], Y_s[:, :])
    Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])
