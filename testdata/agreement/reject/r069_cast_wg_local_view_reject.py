# Row 69: a warpgroup cast over per-thread registers (not a warpgroup-level
# operand): rejected.
# agreement: row=69
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def wg_local(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.warp_id_in_wg([4])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([128])
    x = T.alloc_local((8,), "float32")
    y = T.alloc_local((8,), "float16")
    Tx.wg.cast(y[:], x[:])
