# Variation: warp registers <-> a region of global memory at a row offset.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def goff(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (96, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 16), "float16", scope="local", layout=TileLayout(S[(32, 16):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[32:64, :])
    Tx.warp.copy(A[64:96, :], R[:, :])
