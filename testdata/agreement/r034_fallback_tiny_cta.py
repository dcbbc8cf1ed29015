# Row 34: an 8-thread CTA has no whole warp: thread_cnt 0 at cta scope, fallback.
# agreement: row=34
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def tiny(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 256), "float16")
    B = T.match_buffer(B_ptr, (8, 256), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([8])
    A_s = T.alloc_buffer((8, 256), "float16", scope="shared", layout=TileLayout(S[8, 256]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])
