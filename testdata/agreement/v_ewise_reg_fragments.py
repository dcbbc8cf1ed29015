# Variation: elementwise on register fragments at warp, warpgroup and cta scope.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def frags(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    B = T.match_buffer(B_ptr, (128, 8), "float16")
    C = T.match_buffer(C_ptr, (256, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([2])
    T.warp_id_in_wg([4])
    T.warp_id([8])
    T.lane_id([32])
    T.thread_id_in_wg([128])
    T.thread_id([256])
    Rw = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))
    Rg = T.alloc_buffer((128, 8), "float16", scope="local", layout=TileLayout(S[(128, 8):(1 @ tid_in_wg, 1)]))
    Rc = T.alloc_buffer((256, 4), "float32", scope="local", layout=TileLayout(S[(256, 4):(1 @ tx, 1)]))
    Tx.warp.copy(Rw[:, :], A[:, :])
    Tx.warp.add(Rw[:, :], Rw[:, :], Rw[:, :])
    Tx.wg.copy(Rg[:, :], B[:, :])
    Tx.wg.mul(Rg[:, :], Rg[:, :], T.float16(2.0))
    Tx.cta.copy(Rc[:, :], C[:, :])
    Tx.cta.sqrt(Rc[:, :], Rc[:, :])
    Tx.cta.copy(C[:, :], Rc[:, :])
