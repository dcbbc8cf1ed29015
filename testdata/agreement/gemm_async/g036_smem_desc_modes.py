"""The smem_desc modes of 0.26 and later, one kernel each, at warp scope in a K loop:
"local_hoist" (encoded at the call), "recompute" (the descriptor rebuilt from the shared
address per MMA), "encode" (encoded per MMA), and an unknown string (the default "hoist":
encoded after the buffers' declarations, the low word shuffled). 0.25 ignores the key."""
# agreement: arch=sm_100a
# tilels-test: arch=sm_100a
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout
@T.prim_func
def mm_local_hoist(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    B = T.match_buffer(B_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    lane = T.lane_id([32])
    tid = T.thread_id([128])
    a_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    b_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    pool = T.SMEMPool()
    tmem_addr = pool.alloc([1], "uint32")
    pool.commit()
    tmem_pool = T.TMEMPool(pool, total_cols=256, tmem_addr=tmem_addr)
    c_tmem = tmem_pool.alloc((128, 128), "float32")
    tmem_pool.commit()
    T.cuda.cta_sync()
    for k in range(2):
        if warp_id == 0:
            Tx.warp.gemm_async(c_tmem[:, :], a_smem[k, :, :], b_smem[k, :, :], accum=k > 0, smem_desc="local_hoist")


@T.prim_func
def mm_recompute(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    B = T.match_buffer(B_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    lane = T.lane_id([32])
    tid = T.thread_id([128])
    a_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    b_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    pool = T.SMEMPool()
    tmem_addr = pool.alloc([1], "uint32")
    pool.commit()
    tmem_pool = T.TMEMPool(pool, total_cols=256, tmem_addr=tmem_addr)
    c_tmem = tmem_pool.alloc((128, 128), "float32")
    tmem_pool.commit()
    T.cuda.cta_sync()
    for k in range(2):
        if warp_id == 0:
            Tx.warp.gemm_async(c_tmem[:, :], a_smem[k, :, :], b_smem[k, :, :], accum=k > 0, smem_desc="recompute")


@T.prim_func
def mm_encode(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    B = T.match_buffer(B_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    lane = T.lane_id([32])
    tid = T.thread_id([128])
    a_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    b_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    pool = T.SMEMPool()
    tmem_addr = pool.alloc([1], "uint32")
    pool.commit()
    tmem_pool = T.TMEMPool(pool, total_cols=256, tmem_addr=tmem_addr)
    c_tmem = tmem_pool.alloc((128, 128), "float32")
    tmem_pool.commit()
    T.cuda.cta_sync()
    for k in range(2):
        if warp_id == 0:
            Tx.warp.gemm_async(c_tmem[:, :], a_smem[k, :, :], b_smem[k, :, :], accum=k > 0, smem_desc="encode")


@T.prim_func
def mm_bogus(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    B = T.match_buffer(B_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    lane = T.lane_id([32])
    tid = T.thread_id([128])
    a_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    b_smem = T.alloc_buffer((2, 128, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (2, 128, 64)))
    pool = T.SMEMPool()
    tmem_addr = pool.alloc([1], "uint32")
    pool.commit()
    tmem_pool = T.TMEMPool(pool, total_cols=256, tmem_addr=tmem_addr)
    c_tmem = tmem_pool.alloc((128, 128), "float32")
    tmem_pool.commit()
    T.cuda.cta_sync()
    for k in range(2):
        if warp_id == 0:
            Tx.warp.gemm_async(c_tmem[:, :], a_smem[k, :, :], b_smem[k, :, :], accum=k > 0, smem_desc="bogus")


