# Variation: packed casts and f32x2 adds into row-major and transposed shared
# tiles (the packed contiguity check).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def cast_t(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    B_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[(32, 32):(1, 32)]))
    C_s = T.alloc_buffer((32, 32), "bfloat16", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.cast(B_s[:, :], A_s[:, :])
    Tx.cta.cast(C_s[:, :], A_s[:, :])
    Tx.cta.cast(A_s[:, :], C_s[:, :])
    Tx.cta.copy(B[:, :], B_s[:, :])
