"""smem_desc="encode" (an encoder call per MMA) on a block-scaled MMA: 0.26 and 0.27 raise
"tcgen05 gemm_async smem_desc='encode' is only implemented for dense MMA"; 0.25 has no smem_desc
key and ignores it (the MMA of g021)."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_bs_encode(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float8_e4m3fn")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (128, 128)))
    B_smem = T.alloc_buffer((32, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (32, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 512) : (1 @ TLane, 1 @ TCol)]))
    sfa = T.decl_buffer((128, 1), "float8_e8m0fnu", scope="tmem", allocated_addr=32,
                        layout=TileLayout(S[(4, 32) : (4 @ TCol, 1 @ TLane)] + R[4 : 32 @ TLane]))
    sfb = T.decl_buffer((32, 1), "float8_e8m0fnu", scope="tmem", allocated_addr=36,
                        layout=TileLayout(S[32 : 1 @ TLane] + R[4 : 32 @ TLane]))
    if tid == 0:
        Tx.gemm_async(tmem[0:128, 0:32], A_smem[:, :], B_smem[:, :], SFA=sfa[0:128, 0:1], SFB=sfb[0:32, 0:1], smem_desc="encode")
