package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// kernelBuffers returns the buffers fn's code names (its allocations and
// declarations, the buffers its accesses and pointers name, and the
// buffers those are views of).
func kernelBuffers(fn *ir.Func) []*ir.Buffer {
	seen := map[*ir.Buffer]bool{}
	var out []*ir.Buffer
	var add func(b *ir.Buffer)
	add = func(b *ir.Buffer) {
		if b == nil || seen[b] {
			return
		}
		seen[b] = true
		out = append(out, b)
		add(b.Base)
		add(b.PtrBase)
	}
	var expr func(e ir.Expr)
	expr = func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Load:
			add(e.Buf)
			for _, x := range e.Indices {
				expr(x)
			}
		case *ir.AddressOf:
			add(e.Buf)
			for _, x := range e.Indices {
				expr(x)
			}
		case *ir.BufferData:
			add(e.Buf)
		case *ir.Region:
			add(e.Buf)
		case *ir.Binary:
			expr(e.A)
			expr(e.B)
		case *ir.Call:
			for _, x := range e.Args {
				expr(x)
			}
		case *ir.Cast:
			expr(e.X)
		case *ir.Select:
			expr(e.Cond)
			expr(e.A)
			expr(e.B)
		case *ir.Not:
			expr(e.X)
		case *ir.Neg:
			expr(e.X)
		case *ir.Tuple:
			for _, x := range e.Elems {
				expr(x)
			}
		}
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Alloc:
			add(s.Buf)
		case *ir.Decl:
			add(s.Buf)
		case *ir.Store:
			add(s.Buf)
			for _, x := range s.Indices {
				expr(x)
			}
			expr(s.Value)
		case *ir.Evaluate:
			expr(s.X)
		case *ir.Let:
			expr(s.Value)
		case *ir.Assign:
			expr(s.Value)
		case *ir.If:
			expr(s.Cond)
		case *ir.For:
			expr(s.Min)
			expr(s.Extent)
		case *ir.While:
			expr(s.Cond)
		}
	})
	return out
}

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
			for _, b := range kernelBuffers(k.Lowered) {
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
	keyOf := func(s string) string {
		t.Helper()
		res := lower.Analyze(source.NewFile("k.py", []byte(s)), lower.Options{})
		if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil || len(res.Diags) > 0 {
			t.Fatalf("no kernel lowered: %v", res.Diags)
		}
		k := res.Kernels[0]
		return memory.Key(k.Lowered, k.Launch)
	}
	base := keyOf(src)
	if got := keyOf(strings.ReplaceAll(src, "(128, 32)", "(256, 16)")); got != base {
		t.Error("(256, 16) tiles moving the same bytes: another key")
	}
	plain := strings.Replace(src, "    Tx.cta.copy(B[:, :], S[:, :])\n", "    B[0, 0] = S[1, 2]\n", 1)
	if keyOf(plain) == keyOf(strings.ReplaceAll(plain, "(128, 32)", "(256, 16)")) {
		t.Error("a load of S[1, 2]: the same key over (128, 32) and (256, 16) tiles")
	}
}
