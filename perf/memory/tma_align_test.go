package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestTMAAlign: a TMA tensor copy's shared address must be a multiple of
// 128 bytes. A copy of W float16 columns of each of 1,024 rows issues one
// box a row, W * 2 bytes apart: on an H100 the 32- and 64-byte steps stop
// the kernel with cudaErrorMisalignedAddress and the 128-byte one passes
// (docs/memory-agreement.md); the first misaligned issue is the call's
// Misaligned instruction.
func TestTMAAlign(t *testing.T) {
	const src = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (1024, 64), "float16", layout=TileLayout(S[(2, 512, 64):(65536, 64, 1)]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((1024, W), "float16", scope="shared.dyn", layout=TileLayout(S[(1024, W):(W, 1)]))
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[:, 0:W], dispatch="tma_auto", mbar=bar.ptr_to([0]))
# tilels: reference=0.27
`
	for _, tc := range []struct {
		w    string
		addr int64 // the first misaligned byte (0: none)
	}{{"16", 32}, {"32", 64}, {"64", 0}} {
		_, ms := analyze(t, strings.ReplaceAll(src, "W", tc.w))
		var got *memory.Instruction
		for _, f := range ms[0].Calls {
			if f.Misaligned != nil {
				got = f.Misaligned
			}
		}
		switch {
		case tc.addr == 0 && got != nil:
			t.Errorf("W=%s: misaligned %s at byte %d, want none", tc.w, got.Kind, got.Lanes()[0].Addr)
		case tc.addr != 0 && (got == nil || got.Kind != memory.KindTMAAddress || got.Lanes()[0].Addr != tc.addr):
			t.Errorf("W=%s: misaligned %+v, want the TMA address at byte %d", tc.w, got, tc.addr)
		}
	}
}
