package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestShapeKey checks the content cache's rule for shapes (cache.go's
// shapes): kernels whose keys are equal have equal figures. Every kernel
// of the test programs is analysed, then the static extents of all its
// shared and global buffers grown and their layouts dropped, and it is
// keyed and analysed again: where the key did not change, the figures
// must not have. A kernel whose copies index a buffer by its coordinates
// must change its key.
func TestShapeKey(t *testing.T) {
	same, changed := 0, 0
	for _, f := range dataKeyFiles(t) {
		res := lower.Analyze(f, lower.Options{Path: f.Name})
		type before struct {
			key, figs string
		}
		var ks []*lower.Kernel
		var was []before
		for _, k := range res.Kernels {
			if k.Lowered == nil || k.Lowered.Body == nil {
				continue
			}
			ks = append(ks, k)
			was = append(was, before{memory.Key(k.Lowered, k.Launch), figureText(memory.Analyze(k.Lowered, k.Launch), k)})
		}
		// (the kernels of a file may share buffers: every one is
		// rewritten once, before any is keyed again)
		done := map[*ir.Buffer]bool{}
		for _, k := range ks {
			for _, b := range memory.KernelBuffers(k.Lowered) {
				if done[b] || (b.Scope != "global" && b.Scope != "shared" && b.Scope != "shared.dyn") {
					continue
				}
				done[b] = true
				shape := make([]int64, len(b.Shape))
				for i, s := range b.Shape {
					shape[i] = s
					if s > 0 {
						shape[i] = 2*s + 1
					}
				}
				b.Shape, b.Layout = shape, nil
			}
		}
		for i, k := range ks {
			if memory.Key(k.Lowered, k.Launch) != was[i].key {
				changed++
				continue
			}
			same++
			if got := figureText(memory.Analyze(k.Lowered, k.Launch), k); got != was[i].figs {
				t.Errorf("%s %s: the key did not change but the figures did:\n%s\nwant\n%s", f.Name, k.Name, got, was[i].figs)
			}
		}
	}
	t.Logf("%d reshaped kernels keep their key, %d do not", same, changed)
	if same < 20 || changed < 20 {
		t.Fatalf("%d reshaped kernels kept their key, %d did not: nothing checked", same, changed)
	}
}

// TestShapeKeyKeeps: two copies of the same bytes through flat pointers
// share a key whatever the tiles' shapes; a copy that indexes its tile
// by coordinates does not.
func TestShapeKeyKeeps(t *testing.T) {
	const src = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float16")
    B = T.match_buffer(B_ptr, (128, 32), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    S = T.alloc_buffer((128, 32), "float16", scope="shared")
    Tx.cta.copy(S[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], S[:, :])
# tilels: reference=0.27
`
	keyOf := func(s string) string { return sourceKey(t, s) }
	base := keyOf(src)
	if got := keyOf(strings.ReplaceAll(src, "(128, 32)", "(256, 16)")); got != base {
		t.Error("(256, 16) tiles moving the same bytes: another key")
	}
	plain := strings.Replace(src, "    Tx.cta.copy(B[:, :], S[:, :])\n", "    B[0, 0] = S[1, 2]\n", 1)
	if keyOf(plain) == keyOf(strings.ReplaceAll(plain, "(128, 32)", "(256, 16)")) {
		t.Error("a load of S[1, 2]: the same key over (128, 32) and (256, 16) tiles")
	}
}
