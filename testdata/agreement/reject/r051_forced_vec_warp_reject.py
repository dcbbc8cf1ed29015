# Row 51: a forced vector width at warp scope: rejected.
# agreement: row=51
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def warp_forced(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    L = T.alloc_buffer((32, 4), "float32", scope="local", layout=TileLayout(S[(32, 4):(1 @ laneid, 1)]))
    Tx.warp.copy(L[:, :], A[:, :], dispatch="vec_128b")
