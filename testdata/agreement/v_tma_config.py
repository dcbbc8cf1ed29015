# Variation: TMA config keys: an L2 cache hint and a descriptor prefetch on a load,
# a reduce-add store, and a store with a cache hint.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def hint_prefetch(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([8256], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((64, 64), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (64, 64)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=1024)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[:, :], dispatch="tma", mbar=bar.ptr_to([0]), cache_hint="evict_last", prefetch_tensormap=True)
        T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 8192)
    T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)


@T.prim_func
def reduce_add(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([16448], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((64, 64), "float32", dyn.data, elem_offset=0, layout=mma_shared_layout("float32", 3, (64, 64)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=2048)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A[:, :], A_s[:, :], dispatch="tma", use_tma_reduce="add")
        T.ptx.cp_async.bulk.commit_group()
        T.ptx.cp_async.bulk.wait_group()


@T.prim_func
def store_hint(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([8256], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((64, 64), "bfloat16", dyn.data, elem_offset=0, layout=mma_shared_layout("bfloat16", 2, (64, 64)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=1024)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A[:, :], A_s[:, :], dispatch="tma", cache_hint="evict_first")
        T.ptx.cp_async.bulk.commit_group()
        T.ptx.cp_async.bulk.wait_group()
