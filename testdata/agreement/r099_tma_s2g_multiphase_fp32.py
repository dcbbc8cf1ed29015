# Row 99: TMA store of an 8x256 fp32 swizzled tile into stage 0 of 3x8x256.
# agreement: row=99
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout


@T.prim_func
def s2g(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (3, 8, 256), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer([8256], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((8, 256), "float32", dyn.data, elem_offset=0, layout=mma_shared_layout("float32", 3, (8, 256)))
    bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=1024)
    if tid == 0:
        T.ptx.mbarrier.init(bar.ptr_to([0]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A[0:1, :, :], A_s[:, :], dispatch="tma")
        T.ptx.cp_async.bulk.commit_group()
        T.ptx.cp_async.bulk.wait_group()
