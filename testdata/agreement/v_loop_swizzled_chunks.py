# Variation: loop-variable column chunks of 128B-swizzled MMA tiles (the column
# dimension is two layout iters): cta copies, warp registers and a TMA load.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def copies(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 256), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([2])
    T.lane_id([32])
    T.thread_id([64])
    A_s = T.alloc_buffer((32, 256), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (32, 256)))
    for j in range(4):
        Tx.cta.copy(A_s[:, j * 64:j * 64 + 64], A[:, j * 64:j * 64 + 64])
    T.cuda.cta_sync()
    for j in range(2):
        Tx.cta.copy(A[:, j * 128:j * 128 + 128], A_s[:, j * 128:j * 128 + 128])


@T.prim_func
def regs(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 256), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 256), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (32, 256)))
    R = T.alloc_buffer((32, 64), "float16", scope="local", layout=TileLayout(S[(32, 64):(1 @ laneid, 1)]))
    for j in range(4):
        Tx.warp.copy(R[:, :], A[:, j * 64:j * 64 + 64])
        Tx.warp.copy(A_s[:, j * 64:j * 64 + 64], R[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(A[:, :], A_s[:, :])


@T.prim_func
def tma_chunks(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 256), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([32768 + 64], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((64, 256), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (64, 256)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=32768 // 8)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        for j in range(4):
            Tx.copy_async(A_s[:, j * 64:j * 64 + 64], A[:, j * 64:j * 64 + 64], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 32768)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
