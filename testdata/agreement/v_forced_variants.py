# Variation: forced fallback, reg, smem and vec_auto variants.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def forced(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    R = T.alloc_buffer((32, 32), "float32", scope="local", layout=TileLayout(S[(32, 32):(1 @ laneid, 1)]))
    Tx.warp.copy(A_s[:, :], A[:, :], dispatch="fallback")
    T.cuda.warp_sync()
    Tx.warp.copy(R[:, :], A_s[:, :], dispatch="reg")
    Tx.warp.exp(A_s[:, :], A_s[:, :], dispatch="smem")
    Tx.warp.copy(A[:, :], A_s[:, :], dispatch="vec_auto")
