# Variation: elementwise ops on loop-variable slices of thread-local vectors and
# of a warp register fragment (sm_100a: the f32 add is packed).
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def vec_slices(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    x = T.alloc_local((32,), "float32")
    y = T.alloc_local((32,), "float32")
    Tx.copy(x[:], A[tid, :])
    Tx.copy(y[:], A[tid, :])
    for i in range(4):
        Tx.mul(x[i * 8:i * 8 + 8], x[i * 8:i * 8 + 8], T.float32(2.0))
        Tx.add(x[i * 8:i * 8 + 8], x[i * 8:i * 8 + 8], y[i * 8:i * 8 + 8])
        Tx.copy(A[tid, i * 8:i * 8 + 8], x[i * 8:i * 8 + 8])


@T.prim_func
def frag_slices(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 32), "float32", scope="local", layout=TileLayout(S[(32, 32):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    for i in range(4):
        Tx.warp.exp(R[:, i * 8:i * 8 + 8], R[:, i * 8:i * 8 + 8])
        Tx.warp.copy(A[:, i * 8:i * 8 + 8], R[:, i * 8:i * 8 + 8])
