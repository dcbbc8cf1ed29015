"""Dense fp8 (e5m2, kind::f8f6f4, K 32) and tf32 (K-major float32 with is_AB_tf32, kind::tf32, K 8) gemm_async,
tf32 MN-major B and a dense descI (both raise from 0.26), e4m3 with transposed (MN-major) B."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def gemm_e5m2(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float8_e5m2")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 128), "float8_e5m2", scope="shared", layout=mma_shared_layout("float8_e5m2", 3, (128, 128)))
    B_smem = T.alloc_buffer((64, 128), "float8_e5m2", scope="shared", layout=mma_shared_layout("float8_e5m2", 3, (64, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], accum=True)


@T.prim_func
def gemm_tf32(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 32), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (128, 32)))
    B_smem = T.alloc_buffer((64, 32), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (64, 32)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], is_AB_tf32=True)


@T.prim_func
def gemm_tf32_mn(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 32), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (128, 32)))
    B_smem = T.alloc_buffer((32, 64), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (32, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], transB=True, is_AB_tf32=True)


@T.prim_func
def gemm_e4m3_transB(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 128), "float8_e4m3fn")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (128, 128)))
    B_smem = T.alloc_buffer((128, 128), "float8_e4m3fn", scope="shared", layout=mma_shared_layout("float8_e4m3fn", 3, (128, 128)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], transB=True)


@T.prim_func
def gemm_desci(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (128, 64)))
    B_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[:, :], A_smem[:, :], B_smem[:, :], descI=T.uint32(0))
