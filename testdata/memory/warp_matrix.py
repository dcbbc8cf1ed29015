from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

# Hand-written warp matrix instructions: ldmatrix fragments fed to
# mma.sync, and an ldmatrix/stmatrix round trip. One warp; the shared
# tiles are copied in by the warp and read after a barrier.


@T.prim_func
def ldsm_mma_f16(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle):
    # D (16 x 8) = A (16 x 16) times B^T, B stored n-major (8 x 16)
    A = T.match_buffer(A_ptr, (16, 16), "float16")
    B = T.match_buffer(B_ptr, (8, 16), "float16")
    D = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_shared((16, 16), "float16")
    B_s = T.alloc_shared((8, 16), "float16")
    a = T.alloc_local([4], "uint32")
    b = T.alloc_local([2], "uint32")
    acc = T.alloc_local([4], "float32")
    Tx.warp.copy(A_s[:, :], A[:, :])
    Tx.warp.copy(B_s[:, :], B[:, :])
    T.cuda.cta_sync()
    T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"](a[0], a[1], a[2], a[3], A_s.ptr_to([lane % 16, lane // 16 * 8]))
    T.ptx["ldmatrix.sync.aligned.m8n8.x2.shared.b16"](b[0], b[1], B_s.ptr_to([lane % 8, lane // 8 % 2 * 8]))
    for i in T.unroll(4):
        acc[i] = T.float32(0)
    T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"](
        acc[0], acc[1], acc[2], acc[3], a[0], a[1], a[2], a[3], b[0], b[1], acc[0], acc[1], acc[2], acc[3]
    )
    for i in T.unroll(4):
        D[lane // 4 + i // 2 * 8, lane % 4 * 2 + i % 2] = acc[i]


@T.prim_func
def ldsm_trans_mma_bf16(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    # D (16 x 8) = A (16 x 8) times B (8 x 8, stored k-major: ldmatrix
    # .trans gives the col fragment) plus C
    A = T.match_buffer(A_ptr, (16, 8), "bfloat16")
    B = T.match_buffer(B_ptr, (8, 8), "bfloat16")
    C = T.match_buffer(C_ptr, (16, 8), "float32")
    D = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_shared((16, 8), "bfloat16")
    B_s = T.alloc_shared((8, 8), "bfloat16")
    a = T.alloc_local([2], "uint32")
    b = T.alloc_local([1], "uint32")
    acc = T.alloc_local([4], "float32")
    Tx.warp.copy(A_s[:, :], A[:, :])
    Tx.warp.copy(B_s[:, :], B[:, :])
    T.cuda.cta_sync()
    T.ptx["ldmatrix.sync.aligned.m8n8.x2.shared.b16"](a[0], a[1], A_s.ptr_to([lane % 16, 0]))
    T.ptx["ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"](b[0], B_s.ptr_to([lane % 8, 0]))
    for i in T.unroll(4):
        acc[i] = C[lane // 4 + i // 2 * 8, lane % 4 * 2 + i % 2]
    T.ptx["mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"](
        acc[0], acc[1], acc[2], acc[3], a[0], a[1], b[0], acc[0], acc[1], acc[2], acc[3]
    )
    for i in T.unroll(4):
        D[lane // 4 + i // 2 * 8, lane % 4 * 2 + i % 2] = acc[i]


@T.prim_func
def ldsm_stsm_trans(A_ptr: T.handle, B_ptr: T.handle):
    # B = A with each of its four 8 x 8 blocks transposed in place:
    # ldmatrix.x4 then stmatrix.x4.trans to the same places
    A = T.match_buffer(A_ptr, (16, 16), "float16")
    B = T.match_buffer(B_ptr, (16, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    A_s = T.alloc_shared((16, 16), "float16")
    T_s = T.alloc_shared((16, 16), "float16")
    v = T.alloc_local([4], "uint32")
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"](v[0], v[1], v[2], v[3], A_s.ptr_to([lane % 16, lane // 16 * 8]))
    T.ptx["stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"](T_s.ptr_to([lane % 16, lane // 16 * 8]), v[0], v[1], v[2], v[3])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], T_s[:, :])


# tilels: reference=0.27
