# Casts a float32 tile to float16 into a row-major tile (packed pairs) and
# into a transposed tile (scalar: the pair of a packed cast would be 32
# elements apart there).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def cast_tiles(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float16")
    C = T.match_buffer(C_ptr, (32, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    B_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[32, 32]))
    C_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[(32, 32) : (1, 32)]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.cast(B_s[:, :], A_s[:, :])
    Tx.cta.cast(C_s[:, :], A_s[:, :])
    Tx.cta.copy(B[:, :], B_s[:, :])
    Tx.cta.copy(C[:, :], C_s[:, :])

# tilels: reference=0.25  (a seeds example, written for apache-tvm 0.25.0.post1)
