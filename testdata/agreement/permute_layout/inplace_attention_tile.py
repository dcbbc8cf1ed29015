"""FlashAttention-style in-place relayout: a warp owns a 16x32 float32 score tile in shared memory,
written row-major, and permutes it in place to the column-major order the next MMA reads (P=16, k=4);
each of 4 warps handles its own tile (warp id in the region start)."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def attn_inplace(Sg_ptr: T.handle, Og_ptr: T.handle):
    Sg = T.match_buffer(Sg_ptr, (4, 16, 32), "float32")
    Og = T.match_buffer(Og_ptr, (4, 16, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    wid = T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    S_row = T.alloc_buffer((4, 16, 32), "float32", scope="shared",
                           layout=TileLayout(S[(4, 16, 32):(512, 32, 1)]))
    S_col = T.decl_buffer((4, 16, 32), "float32", S_row.data, scope="shared",
                          layout=TileLayout(S[(4, 16, 32):(512, 1, 16)]))
    Tx.warp.copy(S_row[wid, :, :], Sg[wid, :, :])
    T.cuda.warp_sync()
    Tx.warp.permute_layout(S_col[wid, :, :], S_row[wid, :, :])
    Tx.warp.copy(Og[wid, :, :], S_col[wid, :, :])
