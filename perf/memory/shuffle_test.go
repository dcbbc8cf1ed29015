package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// warps128 is a kernel of 4 warps over a flat shared buffer; BODY is
// its code.
const warps128 = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_buffer((4096,), "float32", scope="shared")
BODY    T.cuda.cta_sync()
    A[tid] = S[tid]
# tilels: reference=0.27
`

// counts prints the counters of f (not its instructions, whose
// positions differ between two programs).
func counts(f *memory.Figures) string {
	return fmt.Sprintf("shared ld %+v st %+v global ld %+v st %+v", f.SharedLoad, f.SharedStore, f.GlobalLoad, f.GlobalStore)
}

// sameFigures checks that prog with BODY = with and with BODY = without
// has known and equal counters.
func sameFigures(t *testing.T, prog, with, without string) {
	t.Helper()
	_, mw := analyze(t, strings.Replace(prog, "BODY", with, 1))
	_, mo := analyze(t, strings.Replace(prog, "BODY", without, 1))
	fw, fo := mw[0].Total, mo[0].Total
	if fw.Unknown != "" || fo.Unknown != "" {
		t.Fatalf("unknown: with %q, without %q", fw.Unknown, fo.Unknown)
	}
	if counts(fw) != counts(fo) {
		t.Errorf("with the intrinsic:\n  %s\nwithout:\n  %s", counts(fw), counts(fo))
	}
}

// TestWarpIntrinsics: an index computed by a shuffle, __any_sync,
// %laneid or __activemask gives the figures of the same index computed
// without it (before, every one was a runtime value and the figures
// unknown). The pairs are chosen so that a wrong value changes the
// counts: lane*(w+1) is conflict-free in warps 0 and 2 and conflicts 2
// and 4 ways in warps 1 and 3, so a warp proof that took the shuffled
// warp index for the same value in every warp (as it took any other
// intrinsic's result) would count warp 0's figures four times.
func TestWarpIntrinsics(t *testing.T) {
	for _, c := range []struct{ name, with, without string }{
		{"broadcast warp index",
			"    w = T.cuda.__shfl_sync(T.uint32(0xFFFFFFFF), tid // 32, 0, 32)\n    S[(tid % 32) * (w + 1)] = A[tid]\n",
			"    S[(tid % 32) * (tid // 32 + 1)] = A[tid]\n"},
		{"tvm_warp_shuffle from lane 3",
			"    v = T.tvm_warp_shuffle(T.uint32(0xFFFFFFFF), tid, 3, 32, 32)\n    S[(tid % 32) * (v % 4 + 1) + v] = A[tid]\n",
			"    S[(tid % 32) * ((tid // 32 * 32 + 3) % 4 + 1) + tid // 32 * 32 + 3] = A[tid]\n"},
		{"xor",
			"    j = T.cuda.__shfl_xor_sync(T.uint32(0xFFFFFFFF), tid % 32, 5, 32)\n    S[j * 2] = A[tid]\n",
			"    S[((tid % 32) ^ 5) * 2] = A[tid]\n"},
		{"up by 1 in segments of 8",
			"    j = T.cuda.__shfl_up_sync(T.uint32(0xFFFFFFFF), tid % 32, 1, 8)\n    S[j * 4] = A[tid]\n",
			"    S[T.if_then_else(tid % 8 >= 1, tid % 32 - 1, tid % 32) * 4] = A[tid]\n"},
		{"down by 2 in segments of 16",
			"    j = T.cuda.__shfl_down_sync(T.uint32(0xFFFFFFFF), tid % 32, 2, 16)\n    S[j * 8] = A[tid]\n",
			"    S[T.if_then_else(tid % 16 < 14, tid % 32 + 2, tid % 32) * 8] = A[tid]\n"},
		{"laneid",
			"    l = T.cuda.mov_sreg(32, \"laneid\")\n    S[l * 3] = A[tid]\n",
			"    S[(tid % 32) * 3] = A[tid]\n"},
		{"any_sync",
			"    a = T.cuda.any_sync(T.uint32(0xFFFFFFFF), tid % 32 == 7)\n    S[(tid % 32) * (a + 1)] = A[tid]\n",
			"    S[(tid % 32) * 2] = A[tid]\n"},
		{"thread_rank, shuffled from lane 0 (FlashMLA's warp id)",
			"    w = T.tvm_warp_shuffle(T.uint32(0xFFFFFFFF), T.cuda.thread_rank() // 32, 0, 32, 32)\n    S[(tid % 32) * (w + 1)] = A[tid]\n",
			"    S[(tid % 32) * (tid // 32 + 1)] = A[tid]\n"},
		{"thread_rank in an address",
			"    S[(T.cuda.thread_rank() % 32) * (T.cuda.thread_rank() // 32 + 1)] = A[tid]\n",
			"    S[(tid % 32) * (tid // 32 + 1)] = A[tid]\n"},
		{"activemask",
			"    if tid % 32 < 16:\n        m = T.cuda.__activemask()\n        S[(tid % 32) * (m % 7 + 1)] = A[tid]\n",
			"    if tid % 32 < 16:\n        S[(tid % 32) * (65535 % 7 + 1)] = A[tid]\n"},
	} {
		t.Run(c.name, func(t *testing.T) { sameFigures(t, warps128, c.with, c.without) })
	}
}

// TestWarpIntrinsicsConflicts pins the broadcast case by hand: warp w
// stores lane*(w+1) words, 1, 2, 1 and 4 wavefronts (strides of 1, 2, 3
// and 4 words), 8 in all against an ideal of 4.
func TestWarpIntrinsicsConflicts(t *testing.T) {
	_, ms := analyze(t, strings.Replace(warps128, "BODY",
		"    w = T.cuda.__shfl_sync(T.uint32(0xFFFFFFFF), tid // 32, 0, 32)\n    S[(tid % 32) * (w + 1)] = A[tid]\n", 1))
	f := ms[0].Total
	want := memory.Shared{Instructions: 4, Wavefronts: 8, Ideal: 4, Conflicts: 4}
	if f.SharedStore != want {
		t.Errorf("shared stores %+v, want %+v (4 warps: 1+2+1+4 wavefronts)", f.SharedStore, want)
	}
}

// TestWarpIntrinsicsUndefined: a shuffle that reads a lane not taking
// part gives an undefined value, and the figures say so.
func TestWarpIntrinsicsUndefined(t *testing.T) {
	_, ms := analyze(t, strings.Replace(warps128, "BODY",
		"    if tid % 32 < 16:\n        j = T.cuda.__shfl_sync(T.uint32(0xFFFFFFFF), tid % 32, 20, 32)\n        S[j] = A[tid]\n", 1))
	if f := ms[0].Total; !strings.Contains(f.Unknown, "reads lane 20, which does not take part") {
		t.Errorf("unknown = %q", f.Unknown)
	}
}

// ctas4 is a kernel of 4 CTAs in clusters of 2; BODY indexes A.
const ctas4 = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    B = T.match_buffer(B_ptr, (4096,), "float32")
    T.device_entry()
    bx = T.cta_id([4])
    cx = T.cta_id_in_cluster([2])
    tid = T.thread_id([32])
BODY# tilels: reference=0.27
`

// TestSpecialRegisters: %ctaid and %cluster_ctarank read with
// T.cuda.mov_sreg give the figures of the scope ids of the same meaning.
// A[c*33 + tid] starts 132 bytes further in each CTA: 4 sectors in CTA 0,
// 5 in the others (19 in all), which a CTA proof that took the register
// for the same value in every CTA would count as 16.
func TestSpecialRegisters(t *testing.T) {
	for _, c := range []struct{ name, with, without string }{
		{"ctaid.x",
			"    c = T.cuda.mov_sreg(32, \"ctaid.x\")\n    B[tid] = A[c * 33 + tid]\n",
			"    B[tid] = A[bx * 33 + tid]\n"},
		{"cluster_ctarank",
			"    c = T.cuda.mov_sreg(32, \"cluster_ctarank\")\n    B[tid] = A[c * 33 + tid]\n",
			"    B[tid] = A[cx * 33 + tid]\n"},
	} {
		t.Run(c.name, func(t *testing.T) { sameFigures(t, ctas4, c.with, c.without) })
	}
	_, ms := analyze(t, strings.Replace(ctas4, "BODY", "    c = T.cuda.mov_sreg(32, \"ctaid.x\")\n    B[tid] = A[c * 33 + tid]\n", 1))
	if g := ms[0].Total.GlobalLoad; g != (memory.Global{Requests: 4, Sectors: 19, IdealSectors: 16}) {
		t.Errorf("global loads %+v, want 4 requests, 19 sectors (ideal 16)", g)
	}
}

// TestWarpIntrinsicsRuntime: an intrinsic over a value the machine does
// not know says so, with what it did not know.
func TestWarpIntrinsicsRuntime(t *testing.T) {
	_, ms := analyze(t, strings.Replace(warps128, "BODY",
		"    if T.cuda.any_sync(T.uint32(0xFFFFFFFF), A[tid] > T.float32(6.0)) != 0:\n        S[tid] = A[tid]\n", 1))
	want := "the result of cuda.any_sync is a runtime value (the value of A[...] is runtime data)"
	if f := ms[0].Total; !strings.Contains(f.Unknown, want) {
		t.Errorf("unknown = %q, want %q", f.Unknown, want)
	}
}
