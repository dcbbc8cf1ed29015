# Variation: packed f32x2 on sm_100a for sub/mul and a warp fragment add.
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def packed(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    Rw = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))
    x = T.alloc_local((16,), "float32")
    Tx.warp.copy(Rw[:, :], A[:, :])
    Tx.warp.add(Rw[:, :], Rw[:, :], Rw[:, :])
    Tx.copy(x[0:8], A[0, :])
    Tx.copy(x[8:16], A[1, :])
    Tx.sub(x[:], x[:], x[:])
    Tx.mul(x[:], x[:], T.float32(2.0))
    Tx.copy(A[0, :], x[0:8])
    Tx.warp.copy(A[:, :], Rw[:, :])
