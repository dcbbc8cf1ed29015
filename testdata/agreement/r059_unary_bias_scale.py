# Row 59: sqrt/exp with a scale and a constant or region bias (scale dtype = compute dtype).
# agreement: row=59
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def bias_scale(A_ptr: T.handle, H_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    H = T.match_buffer(H_ptr, (32, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    H_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    Bias_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
    Tx.cta.copy(H_s[:, :], H[:, :])
    Tx.cta.copy(Bias_s[:, :], H[:, :])
    T.cuda.cta_sync()
    Tx.cta.sqrt(A_s[:, :], A_s[:, :], bias=T.float32(1.0), scale=T.float32(0.5))
    Tx.cta.exp(H_s[:, :], H_s[:, :], bias=Bias_s[:, :], scale=T.float16(2.0))
    Tx.cta.copy(A[:, :], A_s[:, :])
    Tx.cta.copy(H[:, :], H_s[:, :])
