# Row 56: sqrt of A[10:15, 0:6, 3:10] into B[20:25, 0:6, 2:9] (210 elements, guarded).
# agreement: row=56
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def offset(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8, 12), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    A_s = T.alloc_buffer((32, 8, 12), "float16", scope="shared")
    B_s = T.alloc_buffer((32, 8, 12), "float16", scope="shared")
    Tx.cta.copy(A_s[:, :, :], A[:, :, :])
    T.cuda.cta_sync()
    Tx.cta.sqrt(B_s[20:25, 0:6, 2:9], A_s[10:15, 0:6, 3:10])
    Tx.cta.copy(A[:, :, :], B_s[:, :, :])
