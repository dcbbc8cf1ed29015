# Variation: an fp16 region starting one element off has no 4-byte chunk: ldgsts
# declines and no other copy_async variant applies at cta scope.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def odd(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    A_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.cta.copy_async(A_s[:, :], A[8:40, 1:33])
    T.ptx.cp_async.commit_group()
    T.ptx.cp_async.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(A[8:40, 1:33], A_s[:, :])
