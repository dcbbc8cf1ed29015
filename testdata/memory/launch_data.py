# Kernels whose loops read the contents of a buffer parameter (a varlen
# kernel's sequence offsets, cu_seqlens): a bind line's list of integers
# gives the contents of the launch the memory figures count (ir.Func.
# LaunchData), which `--harness` also puts in the buffer in place of
# random data. Without it, the figures are unknown ("the value of
# offsets[...] is runtime data").
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


# tilels: bind offsets=[0, 10, 40, 41, 100, 164, 200, 230, 256]
@T.prim_func
def segments(A_ptr: T.handle, B_ptr: T.handle, offsets: T.Buffer((9,), "int32")):
    # one CTA a segment of rows, from offsets[bx] to offsets[bx + 1]:
    # 256 rows of 128 bytes in all, each through shared memory
    A = T.match_buffer(A_ptr, (256, 32), "float32")
    B = T.match_buffer(B_ptr, (256, 32), "float32")
    T.device_entry()
    bx = T.cta_id([8])
    T.lane_id([32])
    tid = T.thread_id([32])
    A_s = T.alloc_buffer((1, 32), "float32", scope="shared", layout=TileLayout(S[1, 32]))
    bos: T.int32 = offsets[bx]
    eos: T.int32 = offsets[bx + 1]
    for r in T.serial(eos - bos):
        Tx.warp.copy(A_s[0:1, 0:32], A[bos + r : bos + r + 1, 0:32])
        T.cuda.cta_sync()
        Tx.warp.copy(B[bos + r : bos + r + 1, 0:32], A_s[0:1, 0:32])
        T.cuda.cta_sync()


# tilels: bind offsets=[0, 3, 8, 10, 14, 15, 18, 23, 25, 29, 30, 33, 38, 40, 44, 45, 48, 53, 55, 59, 60, 63, 68, 70, 74, 75, 78, 83, 85, 89, 90, 93, 98, 100, 104, 105, 108, 113, 115, 119, 120, 123, 128, 130, 134, 135, 138, 143, 145, 149, 150, 153, 158, 160, 164, 165, 168, 173, 175, 179, 180, 183, 188, 190, 194, 195, 198, 203, 205, 209, 210, 213, 218, 220, 224, 225, 228, 233, 235, 239, 240, 243, 248, 250, 254, 255, 258, 263, 265, 269, 270, 273, 278, 280, 284, 285, 288, 293, 295, 299, 300, 303, 308, 310, 314, 315, 318, 323, 325, 329, 330, 333, 338, 340, 344, 345, 348, 353, 355, 359, 360, 363, 368, 370, 374, 375, 378, 383, 385]
@T.prim_func
def many_segments(A_ptr: T.handle, B_ptr: T.handle, offsets: T.Buffer((129,), "int32")):
    # 128 segments of 1 to 5 rows, 385 in all: more CTAs than the analysis
    # executes, counted by trip class from the offsets
    A = T.match_buffer(A_ptr, (512, 32), "float32")
    B = T.match_buffer(B_ptr, (512, 32), "float32")
    T.device_entry()
    bx = T.cta_id([128])
    T.lane_id([32])
    tid = T.thread_id([32])
    A_s = T.alloc_buffer((1, 32), "float32", scope="shared", layout=TileLayout(S[1, 32]))
    bos: T.int32 = offsets[bx]
    eos: T.int32 = offsets[bx + 1]
    for r in T.serial(eos - bos):
        Tx.warp.copy(A_s[0:1, 0:32], A[bos + r : bos + r + 1, 0:32])
        T.cuda.cta_sync()
        Tx.warp.copy(B[bos + r : bos + r + 1, 0:32], A_s[0:1, 0:32])
        T.cuda.cta_sync()

# tilels: reference=0.27
