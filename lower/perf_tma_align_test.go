package lower

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// TestTMAAlignWarning: a TMA copy whose issues land 32 bytes apart in
// shared memory gets perf/misaligned, naming the buffer, the byte and the
// 128-byte rule (an H100 stops such a kernel: docs/memory-agreement.md).
func TestTMAAlignWarning(t *testing.T) {
	src := `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (1024, 64), "float16", layout=TileLayout(S[(2, 512, 64):(65536, 64, 1)]))
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((1024, 16), "float16", scope="shared.dyn", layout=TileLayout(S[(1024, 16):(16, 1)]))
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    if tid == 0:
        Tx.copy_async(A_s[:, :], A[:, 16:32], dispatch="tma_auto", mbar=bar.ptr_to([0]))
# tilels: reference=0.27
`
	res := Analyze(source.NewFile("k.py", []byte(src)), Options{})
	var msgs []string
	for _, d := range PerfWarnings(res) {
		if d.Code == CodeMisaligned {
			msgs = append(msgs, d.Message)
		}
	}
	want := "misaligned TMA copy: thread 0's copy reads or writes A_s at byte 32 of its storage, not a multiple of 128"
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], want) {
		t.Errorf("perf/misaligned %q, want one starting %q", msgs, want)
	}
}
