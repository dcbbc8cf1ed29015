# cp.async (LDGSTS): a CTA of 128 threads loads a 64x64 fp16 tile into
# shared memory asynchronously, 16 bytes per thread and instruction, waits
# for its group and copies the tile back out.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def async_load(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16", layout=TileLayout(S[64, 64]))
    B = T.match_buffer(B_ptr, (64, 64), "float16", layout=TileLayout(S[64, 64]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_smem = T.alloc_buffer((64, 64), "float16", scope="shared", layout=TileLayout(S[64, 64]))
    Tx.cta.copy_async(A_smem[:, :], A[:, :])
    T.ptx.cp_async.commit_group()
    T.ptx.cp_async.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_smem[:, :])

# tilels: reference=0.25  (a seeds example, written for apache-tvm 0.25.0.post1)
