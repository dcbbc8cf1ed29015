# A @T.jit kernel built for each of the 12 CONFIGS entries (the
# TIRx-kernels protocol), for the session's preview tests: the first entry
# is padded and conflict-free, the later unpadded ones read the tile by
# rows with 8-way bank conflicts (a performance warning only they report),
# the odd widths copy their edge row through the scalar fallback (warnings
# qualified by their cases), a branch no entry takes is not reached, and
# one only the odd widths take (the last entries) copies the edge back.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid


@T.jit
def rows(
    A: T.Buffer((32, W), "float32"),
    B: T.Buffer((32, W), "float32"),
    *,
    W: T.constexpr,
    PAD: T.constexpr,
):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, W), "float32", scope="shared", layout=TileLayout(S[(32, W) : (W + PAD, 1)]))
    row = T.alloc_buffer((32, W), "float32", scope="local", layout=TileLayout(S[(32, W) : (1 @ laneid, 1)]))
    edge = T.alloc_buffer((W,), "float32", scope="shared")
    Tx.warp.copy(A_s[:, :], A[:, :])
    Tx.warp.copy(edge[:], A[0, :])
    T.cuda.cta_sync()
    if PAD > 100:
        Tx.warp.copy(B[:, :], A_s[:, :])
    Tx.warp.copy(row[:, :], A_s[:, :])
    Tx.warp.copy(B[:, :], row[:, :])
    if W % 2 == 1:
        Tx.warp.copy(B[1, 0:W], edge[:])


CONFIGS = [
    {"W": w, "PAD": p, "label": f"w{w}_p{p}"}
    for w, p in [(32, 4), (32, 0), (64, 0), (96, 0), (128, 0), (32, 32), (64, 64), (32, 8), (64, 4), (5, 0), (7, 0), (9, 0)]
]


def get_kernel(W, PAD, **kwargs):
    return rows.specialize(W=W, PAD=PAD)
# tilels: reference=0.27
