# Row 17: A[16:48, 256:512] of 96x512 <-> a swizzled 32x256 tile; the 8-element
# swizzle chunk caps 8-bit vectors at 8.
# agreement: row=17
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout

SWZ = ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[8, 64])).tile_to((16, 128), (8, 64)).tile_to((32, 256), (16, 128))


@T.prim_func
def task4_i8(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (96, 512), "int8")
    B = T.match_buffer(B_ptr, (96, 512), "int8")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 256), "int8", scope="shared", layout=SWZ)
    Tx.cta.copy(A_s[:, :], A[16:48, 256:512])
    T.cuda.cta_sync()
    Tx.cta.copy(B[16:48, 256:512], A_s[:, :])


@T.prim_func
def task4_f16(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (96, 512), "float16")
    B = T.match_buffer(B_ptr, (96, 512), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 256), "float16", scope="shared", layout=SWZ)
    Tx.cta.copy(A_s[:, :], A[16:48, 256:512])
    T.cuda.cta_sync()
    Tx.cta.copy(B[16:48, 256:512], A_s[:, :])


@T.prim_func
def task4_f32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (96, 512), "float32")
    B = T.match_buffer(B_ptr, (96, 512), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 256), "float32", scope="shared", layout=SWZ)
    Tx.cta.copy(A_s[:, :], A[16:48, 256:512])
    T.cuda.cta_sync()
    Tx.cta.copy(B[16:48, 256:512], A_s[:, :])
