# Row 73: sub with a constant left operand: rejected.
# agreement: row=73
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def const_lhs(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    X_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    Tx.cta.sub(X_s[:, :], T.float16(1.0), X_s[:, :])
