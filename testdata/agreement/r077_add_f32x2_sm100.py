# Row 77: f32 register add on sm_100a: packed add.rz.ftz.f32x2 (vec 2).
# agreement: row=77
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def add_packed(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    x = T.alloc_local((32,), "float32")
    y = T.alloc_local((32,), "float32")
    Tx.copy(x[:], A[tid, :])
    Tx.copy(y[:], A[tid, :])
    Tx.add(x[:], x[:], y[:])
    Tx.copy(A[tid, :], x[:])
