package benchcorpus

import (
	"fmt"
	"strings"
)

// BuildKernel returns a file of at least lines lines holding one
// production-shaped kernel: like the largest TIRx-kernels files (a fused
// attention of 2,600 lines), a single warp-specialised @T.prim_func whose
// body is mostly scalar TIR (barriers, index arithmetic, phase flips,
// serial loops) around a few tile calls per stage: TMA loads into
// swizzled shared tiles, CTA copies, register copies and reductions. A
// keystroke anywhere in it analyses the whole kernel again, the worst case
// of the incremental front end. The text is written here (no corpus code).
func BuildKernel(lines int) string {
	var b strings.Builder
	b.WriteString(`# A production-shaped kernel for the benchmarks (internal/benchcorpus).
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout

ROWS = 64
COLS = 64
TILE_BYTES = ROWS * COLS * 2
STAGES = 2


@T.prim_func
def fused(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (STAGES, ROWS, COLS), "float16", layout=TileLayout(S[STAGES, ROWS, COLS]))
    B = T.match_buffer(B_ptr, (ROWS, COLS), "float32", layout=TileLayout(S[ROWS, COLS]))
    C = T.match_buffer(C_ptr, (32, 8), "float32", layout=TileLayout(S[32, 8]))
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([2])
    warp = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    tid = T.thread_id([256])
    dyn = T.alloc_buffer([TILE_BYTES * STAGES + 64], "uint8", scope="shared.dyn")
    A_smem = T.decl_buffer((STAGES, ROWS, COLS), "float16", dyn.data, elem_offset=0,
                           layout=mma_shared_layout("float16", 3, (STAGES, ROWS, COLS)))
    bar = T.decl_buffer([STAGES], "uint64", dyn.data, elem_offset=TILE_BYTES * STAGES // 8)
    F_smem = T.alloc_buffer((ROWS, COLS), "float32", scope="shared", layout=TileLayout(S[ROWS, COLS]))
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8) : (1 @ laneid, 1)]))
    acc = T.alloc_buffer((1,), "float32", scope="local")
    phase: T.int32
    phase = 0
    if tid == 0:
        for s in range(STAGES):
            T.ptx.mbarrier.init(bar.ptr_to([s]), 1)
    T.ptx.fence.proxy_async("shared::cta")
    T.cuda.cta_sync()
`)
	n := strings.Count(b.String(), "\n")
	for k := 0; n < lines; k++ {
		s := k % 2
		block := fmt.Sprintf(`    # stage %[1]d
    if wg == 0:
        if warp == 0:
            if T.cuda.elect_sync():
                Tx.copy_async(A_smem[%[2]d, 0:ROWS, 0:COLS], A[%[2]d, 0:ROWS, 0:COLS], dispatch="tma", mbar=bar.ptr_to([%[2]d]))
                T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([%[2]d]), TILE_BYTES)
        for i in T.serial(0, 4):
            acc[0] = acc[0] + T.float32(i * %[1]d %% 7)
            if i == 3:
                phase = phase ^ 1
    else:
        T.ptx.mbarrier.try_wait(bar.ptr_to([%[2]d]), phase)
        for j in T.serial(0, 2):
            acc[0] = acc[0] * T.float32(0.5) + T.float32(j)
    T.cuda.cta_sync()
    Tx.cta.copy(F_smem[0:ROWS, 0:COLS], B[0:ROWS, 0:COLS])
    T.cuda.cta_sync()
    if wg == 1:
        if warp == 0:
            Tx.warp.copy(R[:, :], F_smem[0:32, 0:8])
            Tx.warp.copy(C[:, :], R[:, :])
    T.cuda.cta_sync()
    Tx.cta.add(F_smem[0:ROWS, 0:COLS], F_smem[0:ROWS, 0:COLS], F_smem[0:ROWS, 0:COLS])
    T.cuda.cta_sync()
`, k, s)
		b.WriteString(block)
		n += strings.Count(block, "\n")
	}
	return b.String()
}
