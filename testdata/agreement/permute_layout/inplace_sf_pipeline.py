"""In-place permute of a pipelined scale-factor smem tile (the warp_xor_swizzle docstring's SFA_smem ->
SFA_post): the smem tile and a view of its storage, buffer shape (PIPE, 8, 32) but layout shards of rank 4
(PIPE, 2, 4, 32), the stage index ks a loop variable; each lane reads all its elements before any write."""
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout


@T.prim_func
def inplace_sf(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 8, 32), "uint32")
    B = T.match_buffer(B_ptr, (2, 8, 32), "uint32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.thread_id([32])
    SFA_smem = T.alloc_buffer((2, 8, 32), "uint32", scope="shared",
                              layout=TileLayout(S[(2, 2, 4, 32):(256, 128, 32, 1)]))
    SFA_post = T.decl_buffer((2, 8, 32), "uint32", SFA_smem.data, scope="shared",
                             layout=TileLayout(S[(2, 2, 4, 32):(256, 128, 1, 4)]))
    Tx.warp.copy(SFA_smem[:, :, :], A[:, :, :])
    T.cuda.warp_sync()
    for ks in T.serial(0, 2):
        Tx.warp.permute_layout(SFA_post[ks, :, :], SFA_smem[ks, :, :])
    Tx.warp.copy(B[:, :, :], SFA_post[:, :, :])
