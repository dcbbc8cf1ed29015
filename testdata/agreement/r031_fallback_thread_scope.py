# Row 31: at thread scope the 4x6 copy vectorizes (gmem_smem, not fallback).
# agreement: row=31
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def one_thread(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 6), "float32")
    B = T.match_buffer(B_ptr, (4, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A_s = T.alloc_buffer((4, 6), "float32", scope="shared", layout=TileLayout(S[4, 6]))
    Tx.thread.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.thread.copy(B[:, :], A_s[:, :])
