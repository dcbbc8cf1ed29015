package cuda_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// The golden files in codegen/testdata cover what Print emits; these cases
// cover what it refuses and a few rules that need no whole kernel.

func smem(name string, shape ...int64) *ir.Buffer {
	return &ir.Buffer{Name: name, Shape: shape, Dtype: ir.Float32, Scope: "shared", Layout: layout.RowMajor(shape...), Kind: ir.AllocBuffer}
}

func kernel(body ...ir.Stmt) []cuda.Kernel {
	fn := &ir.Func{Name: "k", Body: &ir.Block{Stmts: body}}
	return []cuda.Kernel{{Func: fn, Launch: ir.Launch{Grid: [3]int64{1, 1, 1}, Block: [3]int64{128, 1, 1}, Cluster: [3]int64{1, 1, 1}}}}
}

func kernels(ks ...[]cuda.Kernel) []cuda.Kernel {
	var out []cuda.Kernel
	for _, k := range ks {
		out = append(out, k...)
	}
	return out
}

func evalCall(op string, args ...ir.Expr) ir.Stmt {
	return &ir.Evaluate{X: &ir.Call{Op: op, Args: args}}
}

func str(s string) ir.Expr { return &ir.StringImm{Value: s} }

func TestPrintErrors(t *testing.T) {
	a := smem("A", 4)
	addr := &ir.AddressOf{Buf: a, Indices: []ir.Expr{ir.Const(0)}, FlatIndex: true}
	for _, tc := range []struct {
		name    string
		arch    string
		kernels []cuda.Kernel
		want    string // substring of the error
	}{
		{"unlowered", "", kernel(&ir.TileCall{Op: "copy", Scope: "warp", Args: []ir.Expr{&ir.Region{Buf: a, Min: []ir.Expr{ir.Const(0)}, Extent: []ir.Expr{ir.Const(4)}}}}),
			"unlowered tile call Tx.warp.copy(A[0:4])"},
		{"undeclared", "", kernel(&ir.Store{Buf: a, Indices: []ir.Expr{ir.Const(0)}, Value: &ir.FloatImm{Value: 1, Type: ir.Float32}}),
			"buffer A used before its declaration"},
		{"unknown op", "", kernel(evalCall("no.such.op")), `unknown intrinsic "no.such.op"`},
		// Kernels print concurrently; the error is still the first one in
		// kernel order, as when printing them one after the other.
		{"second kernel", "", kernels(kernel(evalCall(ir.OpCTASync)), kernel(evalCall("no.such.op"))),
			`kernel k: unknown intrinsic "no.such.op"`},
		{"first error wins", "", kernels(kernel(evalCall("first.bad")), kernel(evalCall("second.bad")), kernel(evalCall("third.bad"))),
			`unknown intrinsic "first.bad"`},
		{"f32x2 below sm_100", "sm_90a", kernel(&ir.Alloc{Buf: a}, evalCall(ir.OpPackedF32x2, str("add"), str("rz"), addr, addr, addr)),
			"ptx.f32x2 (add.rz.ftz.f32x2) needs sm_100 or later, target is sm_90a"},
		{"elect below sm_90", "sm_80", kernel(evalCall(ir.OpElectSync)), "ptx.elect_sync needs sm_90 or later"},
		{"copy width", "", kernel(&ir.Alloc{Buf: a}, evalCall(ir.OpCopyBytes, addr, addr, ir.Const(3))),
			"cuda.copy_bytes of 3 bytes"},
		{"fence space", "", kernel(evalCall(ir.OpFenceProxyAsync, str("tensormap"))), `unknown state space "tensormap"`},
		{"tmem alloc", "", kernel(&ir.Alloc{Buf: &ir.Buffer{Name: "T", Shape: []int64{128, 32}, Dtype: ir.Float32, Scope: "tmem"}}),
			`cannot allocate scope "tmem"`},
		{"bad arch", "compute_90", kernel(), `bad arch "compute_90"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := cuda.Print(tc.kernels, cuda.Options{Arch: tc.arch})
			if err == nil {
				t.Fatalf("no error; printed:\n%s", src)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if src != "" {
				t.Errorf("partial output with an error")
			}
		})
	}
}

// TestHelpersOnce: helpers used by several kernels and several calls are
// emitted once, kernels with equal names are uniquified, and launch bounds
// are omitted for one-thread kernels.
func TestHelpersOnce(t *testing.T) {
	mk := func(threads int64) cuda.Kernel {
		a := smem("A", 4)
		addr := &ir.AddressOf{Buf: a, Indices: []ir.Expr{ir.Const(0)}, FlatIndex: true}
		k := kernel(&ir.Alloc{Buf: a}, evalCall(ir.OpCopyBytes, addr, addr, ir.Const(16)), evalCall(ir.OpCopyBytes, addr, addr, ir.Const(16)))[0]
		k.Launch.Block[0] = threads
		return k
	}
	src, err := cuda.Print([]cuda.Kernel{mk(128), mk(1)}, cuda.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for sub, want := range map[string]int{
		"void tvm_builtin_copy_128b(":            1,
		"tvm_builtin_copy_128b((&(A_ptr[0]))":    4,
		"__launch_bounds__(128) k_kernel(":       1,
		`extern "C" __global__ void k_kernel_1(`: 1,
		"// tilels: arch=sm_90a\n":               1,
		"#include <cuda_fp8.h>\n":                1,
		"__shared__ alignas(64) float A_ptr[4];": 2,
	} {
		if got := strings.Count(src, sub); got != want {
			t.Errorf("%q occurs %d times, want %d\n%s", sub, got, want, src)
		}
	}
}

// TestThreadIndexSimplification: thread indices fold by CTA size.
func TestThreadIndexSimplification(t *testing.T) {
	for _, tc := range []struct {
		threads int64
		axis    string
		want    string
	}{
		{32, "laneid", "((int)threadIdx.x)"},
		{128, "laneid", "(((int)threadIdx.x) % 32)"},
		{32, "warpid", "= 0;"},
		{128, "warpid", "warp_id_in_cta = __shfl_sync(0xffffffff, ((int)threadIdx.x) >> 5, 0, 32);"},
		{96 + 16, "warpid", "warp_id_in_cta = ((int)threadIdx.x) >> 5;"},
		{128, "wgid", "= 0;"},
		{256, "wgid", "(warp_id_in_cta >> 2)"},
		{256, "tid_in_wg", "(((int)threadIdx.x) % 128)"},
		{256, "wid_in_wg", "(warp_id_in_cta & 3)"},
		{0, "laneid", "(((int)threadIdx.x) % 32)"}, // unknown launch: no folding
	} {
		v := &ir.Var{Name: "t", Type: ir.Int32}
		k := kernel(&ir.Let{Var: v, Value: &ir.ThreadIndex{Axis: tc.axis}})
		k[0].Launch.Block[0] = tc.threads
		src, err := cuda.Print(k, cuda.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(src, tc.want) {
			t.Errorf("%d threads, %s: want %q in\n%s", tc.threads, tc.axis, tc.want, src)
		}
	}
}
