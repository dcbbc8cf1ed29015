package tirxlib_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/dsl/tirxlib"
)

// A kernel whose layout comes from tvm.tirx.layout (layout.go) and whose
// tma_utils module is named by a pattern spelling (library.go's Match).
const layoutKernel = `from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout
from tvm.backend.cuda.operator.tile_primitive.tma_utils import SwizzleMode, mma_shared_layout

L = TileLayout(S[(8, 8) : (1, 8)])
M = mma_shared_layout("float16", SwizzleMode.SWIZZLE_NONE, (8, 64))


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 8), "float16")
    T.device_entry()
    T.thread_id([32])
    a = T.alloc_buffer((8, 8), "float16", scope="shared", layout=L)
    b = T.alloc_buffer((8, 64), "float16", scope="shared", layout=M)
`

func evaluate(t *testing.T, src string, lib *eval.Library) string {
	t.Helper()
	f, _ := syntax.Parse(source.NewFile("k.py", []byte(src)))
	return eval.Dump(eval.Evaluate(f, eval.Options{Library: lib}))
}

// TestLibraryPlugsIn checks the boundary both ways: with tirxlib's Library
// the layout modules are modelled (the buffers get their layouts), and
// without one the interpreter knows nothing of them (the layouts are
// unresolved), so the models really live in this package.
func TestLibraryPlugsIn(t *testing.T) {
	with := evaluate(t, layoutKernel, tirxlib.Library())
	for _, want := range []string{"alloc a: shared float16[8, 8] layout=S[(8,8):(1,8)]", "alloc b: shared float16[8, 64] layout=S["} {
		if !strings.Contains(with, want) {
			t.Errorf("with the library: no %q in\n%s", want, with)
		}
	}
	if strings.Contains(with, "eval/unresolved") {
		t.Errorf("with the library: unresolved values in\n%s", with)
	}
	without := evaluate(t, layoutKernel, nil)
	if !strings.Contains(without, "eval/unresolved") || strings.Contains(without, "layout=S[(8,8):(1,8)]") {
		t.Errorf("without a library the layout modules must be opaque; got\n%s", without)
	}
}

// TestLibraryTable checks the table: every module has a name and an
// attribute function, and its path and aliases are unique (NewLibrary
// panics on a repeated one).
func TestLibraryTable(t *testing.T) {
	mods := tirxlib.Library().Modules()
	if len(mods) == 0 {
		t.Fatal("empty library")
	}
	for _, m := range mods {
		if m.Path == "" || m.Name == "" || m.Attr == nil {
			t.Errorf("incomplete module %+v", m)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewLibrary accepted a repeated path")
		}
	}()
	eval.NewLibrary([]eval.LibModule{mods[0], mods[0]}, eval.Hooks{})
}

// TestTirxOpModule: tvm.tirx.op's functions are T's (tirx_op_module.go),
// imported by name or reached through the module; a name op.py does not
// define is not one of them.
func TestTirxOpModule(t *testing.T) {
	const src = `from tvm.script import tirx as T
import tvm.tirx.op as op
from tvm.tirx.op import if_then_else


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "float32")
    T.device_entry()
    tid = T.thread_id([32])
    A[tid] = if_then_else(tid < 16, T.float32(1), T.float32(2))
    A[tid] = op.if_then_else(tid < 8, A[tid], T.float32(3))
    OTHER
`
	got := evaluate(t, strings.Replace(src, "OTHER", "", 1), tirxlib.Library())
	if strings.Contains(got, "eval/unresolved") || strings.Count(got, "T.Select(") != 2 {
		t.Errorf("tvm.tirx.op's if_then_else:\n%s", got)
	}
	got = evaluate(t, strings.Replace(src, "OTHER", `A[tid] = op.Select(tid < 4, A[tid], T.float32(5))`, 1), tirxlib.Library())
	if !strings.Contains(got, "eval/unresolved") || strings.Count(got, "T.Select(") != 2 {
		t.Errorf("tvm.tirx.op.Select (T.Select, not in op.py) resolved:\n%s", got)
	}
}
