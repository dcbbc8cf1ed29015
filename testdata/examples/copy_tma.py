# TMA (cp.async.bulk.tensor) between global memory and a 128-byte-swizzled
# shared tile, the layout wgmma reads. One elected thread issues the copy;
# an mbarrier tracks the bytes in flight (load), a bulk group the store.
# Run `tilels --lower copy_tma.py --emit json` to see each descriptor.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout

TILE = (8, 256)
TILE_BYTES = 8 * 256 * 2
STAGES = 3


@T.prim_func
def tma_load(A_ptr: T.handle, B_ptr: T.handle):
    # 8x256 fp16 global -> swizzled shared (one rank-3 TMA), then back with
    # a CTA-wide vectorized copy.
    A = T.match_buffer(A_ptr, TILE, "float16", layout=TileLayout(S[8, 256]))
    B = T.match_buffer(B_ptr, TILE, "float16", layout=TileLayout(S[8, 256]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([TILE_BYTES + 64], "uint8", scope="shared.dyn")
    A_smem = T.decl_buffer(TILE, "float16", dyn.data, elem_offset=0,
                           layout=mma_shared_layout("float16", 3, TILE))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=TILE_BYTES // 8)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_smem[0:8, 0:256], A[0:8, 0:256], dispatch="tma", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), TILE_BYTES)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:8, 0:256], A_smem[0:8, 0:256])


@T.prim_func
def tma_pipeline(A_ptr: T.handle, B_ptr: T.handle):
    # Three 8x256 stages through one shared tile; the mbarrier phase flips
    # after every stage.
    A = T.match_buffer(A_ptr, (STAGES, 8, 256), "float16", layout=TileLayout(S[STAGES, 8, 256]))
    B = T.match_buffer(B_ptr, (STAGES, 8, 256), "float16", layout=TileLayout(S[STAGES, 8, 256]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([TILE_BYTES + 64], "uint8", scope="shared.dyn")
    A_smem = T.decl_buffer(TILE, "float16", dyn.data, elem_offset=0,
                           layout=mma_shared_layout("float16", 3, TILE))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=TILE_BYTES // 8)
    phase: T.int32
    phase = 0
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    for stage in range(STAGES):
        if tid == 0:
            Tx.copy_async(A_smem[0:8, 0:256], A[stage:stage + 1, 0:8, 0:256], dispatch="tma",
                          mbar=bar.ptr_to([0]))
            T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), TILE_BYTES)
        T.ptx.mbarrier.try_wait(bar.ptr_to([0]), phase)
        phase = phase ^ 1
        T.cuda.cta_sync()
        Tx.cta.copy(B[stage:stage + 1, 0:8, 0:256], A_smem[0:8, 0:256])
        T.cuda.cta_sync()


@T.prim_func
def tma_store(A_ptr: T.handle, B_ptr: T.handle):
    # The reverse direction: a CTA fills the swizzled tile, one thread
    # stores it with a TMA store and waits for the bulk group.
    A = T.match_buffer(A_ptr, (STAGES, 8, 256), "float16", layout=TileLayout(S[STAGES, 8, 256]))
    B = T.match_buffer(B_ptr, (STAGES, 8, 256), "float16", layout=TileLayout(S[STAGES, 8, 256]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([TILE_BYTES], "uint8", scope="shared.dyn")
    A_smem = T.decl_buffer(TILE, "float16", dyn.data, elem_offset=0,
                           layout=mma_shared_layout("float16", 3, TILE))
    for stage in range(STAGES):
        Tx.cta.copy(A_smem[0:8, 0:256], A[stage:stage + 1, 0:8, 0:256])
        T.ptx.fence.proxy_async("shared::cta")
        T.cuda.cta_sync()
        if tid == 0:
            Tx.copy_async(B[stage:stage + 1, 0:8, 0:256], A_smem[0:8, 0:256], dispatch="tma")
            T.ptx.cp_async.bulk.commit_group()
            T.ptx.cp_async.bulk.wait_group()
        T.cuda.cta_sync()

# tilels: reference=0.25  (a seeds example, written for apache-tvm 0.25.0.post1)
