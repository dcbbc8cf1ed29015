# log2 and maximum (0.26+ elementwise ops; 0.25 has no Tx.log2 and no
# maximum variant): shared tiles at CTA scope and register fragments, with a
# tile and a scalar second operand.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid


@T.prim_func
def shared_ops(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    X_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    Y_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    Tx.cta.copy(X_s[:, :], A[:, :])
    Tx.cta.copy(Y_s[:, :], B[:, :])
    T.cuda.cta_sync()
    Tx.cta.log2(X_s[:, :], X_s[:, :])
    Tx.cta.maximum(X_s[:, :], X_s[:, :], Y_s[:, :])
    Tx.cta.maximum(Y_s[0:32, :], Y_s[0:32, :], T.float16(1.0))
    T.cuda.cta_sync()
    Tx.cta.copy(A[:, :], X_s[:, :])
    Tx.cta.copy(B[:, :], Y_s[:, :])


@T.prim_func
def frag_ops(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))
    Q = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
    Tx.warp.log2(Q[:, :], R[:, :])
    Tx.warp.maximum(R[:, :], R[:, :], Q[:, :])
    Tx.warp.maximum(R[:, 0:4], R[:, 0:4], T.float32(0.5))
    Tx.warp.copy(A[:, :], R[:, :])
