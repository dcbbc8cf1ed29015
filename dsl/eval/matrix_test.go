package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"fmt"
	"strings"
	"testing"
)

// TestCallMatrix calls every modelled function and method with a set of
// odd argument lists inside a kernel body and at module level: any
// diagnostic is fine, a panic is not.
func TestCallMatrix(t *testing.T) {
	p, syn := evalSource("matrix.py", callMatrix(), eval.Options{})
	if len(syn) > 0 {
		t.Fatalf("matrix program has syntax errors: %v", syn[0])
	}
	for _, d := range p.Diags {
		if d.Code == eval.CodeInternal {
			t.Fatal(d.Message)
		}
	}
	if len(p.Kernels) != 1 || len(p.Kernels[0].Func.Body.Stmts) < 100 {
		t.Fatalf("matrix kernel not evaluated:\n%s", eval.Dump(p))
	}
}

// callMatrix builds a program calling every modelled function and method
// with odd argument lists, in a kernel body and at module level.
func callMatrix() []byte {
	callees := []string{
		"len", "min", "max", "range", "tuple", "list", "set", "dict", "int", "float", "str", "bool",
		"abs", "sum", "round", "divmod", "pow", "enumerate", "zip", "reversed", "sorted", "map",
		"filter", "any", "all", "isinstance", "getattr", "hasattr", "repr", "slice", "chr", "ord", "hex",
		"math.gcd", "math.ceil", "math.log2", "math.prod", "math.pow", "math.isfinite", "functools.partial", "functools.reduce",
		"itertools.product", "itertools.chain", "operator.mul", "tvm.DataType",
		"T.match_buffer", "T.alloc_buffer", "T.alloc_shared", "T.alloc_local", "T.decl_buffer", "T.Buffer",
		"T.cta_id", "T.thread_id", "T.lane_id", "T.warp_id", "T.cluster_id", "T.device_entry",
		"T.meta_var", "T.address_of", "T.cast", "T.evaluate", "T.Bind", "T.serial", "T.unroll", "T.grid",
		"T.if_then_else", "T.infinity", "T.max_value", "T.reinterpret", "T.static_assert", "T.ceildiv",
		"T.max", "T.sqrt", "T.float32", "T.int32", "T.prim_func", "T.SMEMPool", "T.tvm_storage_sync",
		"T.cuda.cta_sync", "T.ptx.mbarrier.init", "T.ptx.elect_sync",
		"T.ptr_byte_offset", "T.handle_add_byte_offset", "T.thread_binding", "T.tvm_warp_shuffle_xor",
		"Tx.copy", "Tx.warp.copy", "Tx.copy_async", "Tx.sqrt", "Tx.fill", "Tx.add", "Tx.fma", "Tx.sum",
		"Tx.gemm", "Tx.zero", "Tx.cast",
		"TileLayout", "TileLayout.from_iters", "ComposeLayout", "SwizzleLayout", "Iter", "Axis.get",
		"SwizzleMode", "mma_shared_layout", "mma_atom_layout", "mma_atom_shape", "get_swizzle_mode_from_layout",
		"L.tile", "L.tile_to", "L.canonicalize", "L.storage", "L.size", "L.span", "L.slice", "L.apply", "L.group",
		"C.tile_to", "C.apply", "C.slice",
		"buf.ptr_to", "buf.local", "buf.view", "buf.scope", "buf.elem_offset_of", "buf.byte_offset_of", "pool.alloc", "pool.alloc_mma", "pool.move_base_to", "pool.commit",
		"lst.append", "lst.pop", "lst.index", "lst.insert", "lst.sort", "dct.get", "dct.pop", "dct.update",
		"s.join", "s.format", "s.split", "s.replace", "s.zfill",
	}
	args := []string{
		"", "None", "0", "-1", "1.5", "'x'", "(1, 2)", "[]", "{}", "buf", "buf[0, 0]", "buf[0:2, :]",
		"L", "C", "tid", "tid, tid", "1, 2, 3, 4, 5, 6", "'float16', 3, (8, 64)", "x=1", "*[1, 2]", "**{'a': 1}",
		"lambda q: q", "(2, 4), 'float16'", "(0,), 'int8', layout=None",
	}
	var b strings.Builder
	b.WriteString(`import math, functools, itertools, operator
import tvm
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, ComposeLayout, SwizzleLayout, Iter, Axis, laneid
from tvm.tirx.cuda.tile_primitive.tma_utils import *
L = TileLayout(S[(4, 8) : (8, 1)])
C = ComposeLayout(3, 3, 3, TileLayout(S[8, 64]))
lst = [3, 1, 2]
dct = {"a": 1}
s = "a{}b"

@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 8), "float32")
    T.device_entry()
    tid = T.thread_id([32])
    buf = T.alloc_buffer((8, 8), "float32", scope="shared")
    pool = T.SMEMPool()
`)
	for _, c := range callees {
		for _, a := range args {
			fmt.Fprintf(&b, "    x = %s(%s)\n", c, a)
		}
	}
	b.WriteString("\nfor c in [1]:\n")
	for _, c := range callees {
		if strings.HasPrefix(c, "T.") || strings.HasPrefix(c, "Tx.") || strings.HasPrefix(c, "buf.") || strings.HasPrefix(c, "pool.") {
			continue
		}
		for _, a := range args {
			if strings.Contains(a, "buf") || strings.Contains(a, "tid") {
				continue
			}
			fmt.Fprintf(&b, "    x = %s(%s)\n", c, a)
		}
	}
	return []byte(b.String())
}
