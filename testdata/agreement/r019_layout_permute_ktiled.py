# Row 19: 128x64 fp16 into K-tiled shared S[(128,8,8):(8,1024,1)] at 128 threads.
# agreement: row=19
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def ktiled(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    B = T.match_buffer(B_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 64), "float16", scope="shared", layout=TileLayout(S[(128, 8, 8):(8, 1024, 1)]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])
