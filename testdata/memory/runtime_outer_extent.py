# A parameter buffer whose outermost extent is a runtime value (q over
# seq_len * 4 rows): its elements are addressed row-major by the inner
# extents alone, so perf/memory counts its accesses (it said "buffer q has
# a runtime shape" before). Its copies lower through fallback, as in the
# reference (gmem_smem declines the runtime extent); logits_static is the
# same code over a static extent: the two kernels' figures are equal
# (perf/memory's TestRuntimeOuterExtent). The bind line gives seq_len the
# value of a launch, by which the harness sizes q (512 rows, as the
# twin's); both are measured on a GPU (docs/gpu-results.md).
# logits_implicit declares its extent in the body (rows = T.int32(), as
# rmsnorm.py's batch_size), which TVM makes a launch argument too: a bind
# line gives it a value the same way.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


# tilels: bind seq_len=128
@T.prim_func
def logits_runtime(q_h: T.handle, w_h: T.handle, seq_len: T.uint32):
    q = T.match_buffer(q_h, (seq_len * 4, 64), "float16")
    w = T.match_buffer(w_h, (64, 64), "float16")
    T.device_entry()
    bx = T.cta_id([8])
    T.warp_id([4])
    T.lane_id([32])
    q_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    w_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    Tx.cta.copy(w_s[:, :], w[:, :])
    Tx.cta.copy(q_s[:, :], q[bx * 64 : bx * 64 + 64, :])
    T.cuda.cta_sync()
    Tx.cta.copy(q[bx * 64 : bx * 64 + 64, :], q_s[:, :])


# tilels: bind rows=512
@T.prim_func
def logits_implicit(q_h: T.handle, w_h: T.handle):
    rows = T.int32()
    q = T.match_buffer(q_h, (rows, 64), "float16")
    w = T.match_buffer(w_h, (64, 64), "float16")
    T.device_entry()
    bx = T.cta_id([8])
    T.warp_id([4])
    T.lane_id([32])
    q_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    w_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    Tx.cta.copy(w_s[:, :], w[:, :])
    Tx.cta.copy(q_s[:, :], q[bx * 64 : bx * 64 + 64, :])
    T.cuda.cta_sync()
    Tx.cta.copy(q[bx * 64 : bx * 64 + 64, :], q_s[:, :])


@T.prim_func
def logits_static(q_h: T.handle, w_h: T.handle):
    q = T.match_buffer(q_h, (512, 64), "float16")
    w = T.match_buffer(w_h, (64, 64), "float16")
    T.device_entry()
    bx = T.cta_id([8])
    T.warp_id([4])
    T.lane_id([32])
    q_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    w_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    Tx.cta.copy(w_s[:, :], w[:, :])
    Tx.cta.copy(q_s[:, :], q[bx * 64 : bx * 64 + 64, :], dispatch="fallback")
    T.cuda.cta_sync()
    Tx.cta.copy(q[bx * 64 : bx * 64 + 64, :], q_s[:, :], dispatch="fallback")
# tilels: reference=0.25
