# Row 65: zero/sqrt/reciprocal/exp/silu on a thread-local (32,) fp16 vector.
# agreement: row=65
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def thread_unary(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    x = T.alloc_local((32,), "float16")
    Tx.copy(x[:], A[tid, :])
    Tx.zero(x[:])
    Tx.sqrt(x[:], x[:])
    Tx.reciprocal(x[:], x[:])
    Tx.exp(x[:], x[:])
    Tx.silu(x[:], x[:])
    Tx.copy(A[tid, :], x[:])
