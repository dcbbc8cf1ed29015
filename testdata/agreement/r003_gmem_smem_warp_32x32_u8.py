# Row 3: the seed demo in uint8.
# agreement: row=3
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def copy_u8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "uint8")
    B = T.match_buffer(B_ptr, (32, 32), "uint8")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "uint8", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_s[:, :])
