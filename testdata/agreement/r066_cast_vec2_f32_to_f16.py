# Row 66: packed pair cast float32 -> float16 in registers.
# agreement: row=66
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def cast_down(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 32), "float32")
    B = T.match_buffer(B_ptr, (64, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    x = T.alloc_local((32,), "float32")
    y = T.alloc_local((32,), "float16")
    Tx.copy(x[:], A[tid, :])
    Tx.cast(y[:], x[:])
    Tx.copy(B[tid, :], y[:])
