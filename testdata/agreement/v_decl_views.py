# Variation: shared tiles declared as views of a dynamic arena at element offsets.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def views(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    dyn = T.alloc_buffer([16384], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((64, 64), "float16", dyn.data, elem_offset=0)
    B_s = T.decl_buffer((32, 32), "float32", dyn.data, elem_offset=2048)
    Tx.cta.copy(A_s[:, :], A[:, :])
    Tx.cta.copy(B_s[:, :], B[:, :])
    T.cuda.cta_sync()
    Tx.cta.exp(B_s[:, :], B_s[:, :])
    Tx.cta.copy(A[:, :], A_s[:, :])
    Tx.cta.copy(B[:, :], B_s[:, :])
