"""MN-major operands without transposes (TVM's dual-atom matching): A [M=128, K=64] and
B [N=64, K=64] stored with M (N) contiguous inside 128B-swizzled [64, 8] atoms, so the
descriptors match the MN-major atom: a_major = b_major = 1 with transA = transB = False."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol, ComposeLayout, SwizzleLayout

A_MN = ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[(64, 8) : (1, 64)])).tile_to((128, 8), (64, 8)).tile_to((128, 64), (128, 8))
B_MN = ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[(64, 8) : (1, 64)])).tile_to((64, 8), (64, 8)).tile_to((64, 64), (64, 8))


@T.prim_func
def gemm_mn(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 64), "float16", scope="shared", layout=A_MN)
    B_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=B_MN)
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :])
