package syntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// genKernels writes a TIRx-flavoured Python file of about lines lines:
// an ir_module class of tiled GEMM and elementwise prim_funcs, plus plain
// Python helpers (f-strings, comprehensions, dicts) as found around kernels.
func genKernels(lines int) []byte {
	var b strings.Builder
	b.WriteString(`# Generated benchmark corpus for the tilels parser.
from tvm.script import tirx as T
from tvm.script import ir as I
from tvm.tirx import Tx
import numpy as np


def make_shapes(n: int, scale: float = 1.5) -> list[tuple[int, int]]:
    """Return (m, n) pairs used by the kernels below."""
    return [(m * 64, (m + 1) * 128) for m in range(n) if m % 2 == 0]


@I.ir_module
class Module:
`)
	for k := 0; strings.Count(b.String(), "\n") < lines; k++ {
		fmt.Fprintf(&b, `    # tilels: bind M=%d N=%d K=%d
    @T.prim_func(private=True)
    def gemm_%d(
        A: T.Buffer((4096, 4096), "float16"),
        B: T.Buffer((4096, 4096), "float16"),
        C: T.Buffer((4096, 4096), "float32"),
    ):
        T.func_attr({"global_symbol": "gemm_%d", "tir.noalias": True})
        with T.kernel():
            bx, by = T.cta_id([32, 32], parent="kernel")
            tx = T.thread_id([128], parent="cta")
            A_smem = T.alloc_buffer((128, 64), "float16", scope="shared")
            B_smem = T.alloc_buffer((64, 128), "float16", scope="shared")
            C_reg = T.alloc_buffer((128, 128), "float32", scope="local")
            Tx.fill(C_reg, T.float32(0))
            for ko in T.serial(0, T.ceildiv(4096, 64)):
                Tx.copy(A_smem[:, :], A[by * 128 : by * 128 + 128, ko * 64 : ko * 64 + 64], dispatch="tma")
                Tx.copy(B_smem[0:64, 0:128], B[ko * 64 : (ko + 1) * 64, bx * 128 : bx * 128 + 128])
                T.ptx.bar.sync(0)
                for i, j in T.grid(8, 8):
                    with T.block("update"):
                        vi, vj = T.axis.remap("SS", [i, j])
                        T.reads(A_smem[vi * 16 : vi * 16 + 16, 0:64], B_smem[0:64, vj * 16 : vj * 16 + 16])
                        T.writes(C_reg[vi * 16 : vi * 16 + 16, vj * 16 : vj * 16 + 16])
                        Tx.gemm(C_reg[vi * 16, vj * 16], A_smem[vi * 16, 0], B_smem[0, vj * 16], accum=True)
            if tx %% 32 == 0 and bx < 16:
                Tx.copy(C[by * 128 : by * 128 + 128, bx * 128 : bx * 128 + 128], C_reg)
            else:
                T.evaluate(T.cuda.warp_sync())

    @T.prim_func
    def add_%d(a: T.handle, b: T.handle, n: T.int32):
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        with T.kernel():
            bx = T.cta_id([T.ceildiv(n, 256)], parent="kernel")
            tx = T.thread_id([256], parent="cta")
            for v in T.vectorized(4):
                idx = bx * 1024 + tx * 4 + v
                if idx < n:
                    B[idx] = A[idx] * T.float32(2.0) + T.float32(1e-6) - (A[idx] // 3) %% 7
            T.attr(0, "pragma_unroll", 1)

`, 1024*(k%4+1), 2048, 512, k, k, k)
		if k%3 == 0 {
			fmt.Fprintf(&b, `    def describe_%d(self, shapes=None, *, verbose=False, **extra) -> str:
        shapes = shapes or make_shapes(%d)
        table = {name: (m, n) for name, (m, n) in zip(["a", "b", "c"], shapes)}
        lines = [f"{k:>8} | {m!r:<6} | {n / 1e3:.2f}k" for k, (m, n) in table.items()]
        return "\n".join(lines) if verbose else f'kernel {self.__class__.__name__}[{%d}]'

`, k, k%7+2, k)
		}
	}
	return []byte(b.String())
}

func TestGenKernelsParses(t *testing.T) {
	src := genKernels(3000)
	f, diags := Parse(source.NewFile("bench.py", src))
	if len(diags) > 0 {
		t.Fatalf("generated corpus has diagnostics: %v", diags)
	}
	checkInvariants(t, "bench.py", f)
}

func BenchmarkParse(b *testing.B) {
	src := genKernels(3000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(source.NewFile("bench.py", src))
	}
}
