# Row 68: exp of a 64x32 fp16 shared tile at 64 threads (scalar hexp, vec 8).
# agreement: row=68
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def exp_f16(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    X_s = T.alloc_buffer((64, 32), "float16", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.exp(X_s[:, :], X_s[:, :])
    Tx.cta.copy(A[:, :], X_s[:, :])
