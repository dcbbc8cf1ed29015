# Row 76: thread-scope adds on 4x8 fp16 registers inside narrowing ifs (region,
# broadcast, constant right operands).
# agreement: row=76
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def local_add(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 4, 8), "float16")
    T.device_entry()
    T.cta_id([1])
    wid = T.warp_id([4])
    lane = T.lane_id([32])
    tid = T.thread_id([128])
    a = T.alloc_local((4, 8), "float16")
    b = T.alloc_local((4, 8), "float16")
    col = T.alloc_local((4, 1), "float16")
    Tx.copy(a[:, :], A[tid, :, :])
    Tx.copy(b[:, :], A[tid, :, :])
    Tx.fill(col[:, :], T.float16(-1.0))
    if wid == 1:
        if lane < 16:
            Tx.add(a[:, :], a[:, :], b[:, :])
            Tx.add(a[:, :], a[:, :], col[:, :])
            Tx.add(a[:, :], a[:, :], T.float16(1.0))
    Tx.copy(A[tid, :, :], a[:, :])
