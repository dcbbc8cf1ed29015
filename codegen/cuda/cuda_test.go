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

// tmaKernel is a one-thread kernel with a global fp16 parameter A and a
// 64x64 shared tile that issues one g2c per call through the tensor map m
// (nil: a valid rank-2 map of A). A cluster of two CTAs.
func tmaKernel(m *ir.TensorMap, calls ...func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call) []cuda.Kernel {
	h := &ir.Var{Name: "A_ptr", Type: ir.HandleT}
	a := &ir.Buffer{Name: "A", Data: h, Shape: []int64{64, 64}, Dtype: ir.Float16, Scope: "global", Layout: layout.RowMajor(64, 64), Kind: ir.ParamBuffer}
	if m == nil {
		m = validMap(a)
	} else if m.Buf == nil {
		m.Buf = a
	}
	s := &ir.Buffer{Name: "A_s", Shape: []int64{64, 64}, Dtype: ir.Float16, Scope: "shared", Layout: layout.RowMajor(64, 64), Kind: ir.AllocBuffer}
	bar := &ir.Buffer{Name: "bar", Shape: []int64{1}, Dtype: ir.DataType{Code: ir.UInt, Bits: 64}, Scope: "shared", Layout: layout.RowMajor(1), Kind: ir.AllocBuffer}
	body := []ir.Stmt{&ir.Alloc{Buf: s}, &ir.Alloc{Buf: bar}}
	sp := &ir.AddressOf{Buf: s, Indices: []ir.Expr{ir.Const(0)}, FlatIndex: true}
	bp := &ir.AddressOf{Buf: bar, Indices: []ir.Expr{ir.Const(0)}, FlatIndex: true}
	for _, c := range calls {
		body = append(body, &ir.Evaluate{X: c(m, sp, bp)})
	}
	fn := &ir.Func{Name: "k", Params: []*ir.Param{{Var: h, Buf: a}}, Body: &ir.Block{Stmts: body}, TensorMaps: []*ir.TensorMap{m}}
	return []cuda.Kernel{{Func: fn, Launch: ir.Launch{Grid: [3]int64{2, 1, 1}, Block: [3]int64{1, 1, 1}, Cluster: [3]int64{2, 1, 1}}}}
}

func validMap(a *ir.Buffer) *ir.TensorMap {
	return &ir.TensorMap{Name: "A_ptr_tensormap", Buf: a, DType: ir.Float16, Rank: 2, GlobalDims: []int64{64, 64},
		GlobalStrides: []int64{128}, Box: []int64{64, 64}, ElemStrides: []int64{1, 1}, L2Promotion: 2, ForceDType: -1}
}

// g2c returns a g2c call builder: mask, cta_group, cache_hint, rank and
// coordinates as given.
func g2c(mask ir.Expr, group int64, hint string, rank int64, coords ...int64) func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call {
	return func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call {
		args := []ir.Expr{ir.Const(rank), s, bar, &ir.TensorMapAddr{Map: m}, mask, ir.Const(group), str(hint)}
		for _, c := range coords {
			args = append(args, ir.Const(c))
		}
		return &ir.Call{Op: ir.OpCpAsyncBulkTensorG2C, Args: args}
	}
}

func s2g(op, hint string) func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call {
	return func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call {
		if op == "" {
			return &ir.Call{Op: ir.OpCpAsyncBulkTensorS2G, Args: []ir.Expr{ir.Const(2), s, &ir.TensorMapAddr{Map: m}, str(hint), ir.Const(0), ir.Const(0)}}
		}
		return &ir.Call{Op: ir.OpCpAsyncBulkTensorS2GReduce, Args: []ir.Expr{ir.Const(2), s, &ir.TensorMapAddr{Map: m}, str(hint), str(op), ir.Const(0), ir.Const(0)}}
	}
}

// TestTensorMapRules: a descriptor that breaks a cuTensorMapEncodeTiled
// rule is a codegen error naming the rule (the launcher's runtime check
// uses the same message).
func TestTensorMapRules(t *testing.T) {
	mod := func(f func(m *ir.TensorMap)) *ir.TensorMap {
		m := validMap(nil)
		f(m)
		return m
	}
	for _, tc := range []struct {
		name string
		m    *ir.TensorMap
		want string
	}{
		{"rank 0", mod(func(m *ir.TensorMap) {
			m.Rank, m.GlobalDims, m.GlobalStrides, m.Box, m.ElemStrides = 0, nil, nil, nil, nil
		}), "tensor map A_ptr_tensormap: rank 0 is outside 1..5"},
		{"rank 6", mod(func(m *ir.TensorMap) {
			m.Rank, m.GlobalDims, m.GlobalStrides, m.Box, m.ElemStrides = 6, make([]int64, 6), make([]int64, 5), make([]int64, 6), make([]int64, 6)
		}), "rank 6 is outside 1..5"},
		{"array length", mod(func(m *ir.TensorMap) { m.Box = []int64{64} }), "Box has 1 entries, want 2 for rank 2"},
		{"dim zero", mod(func(m *ir.TensorMap) { m.GlobalDims[1] = 0 }), "globalDim[1] = 0 is outside 1..2^31"},
		{"dim too big", mod(func(m *ir.TensorMap) { m.GlobalDims[0] = 1<<31 + 1 }), "globalDim[0] = 2147483649 is outside 1..2^31"},
		{"stride alignment", mod(func(m *ir.TensorMap) { m.GlobalStrides[0] = 100 }), "globalStrides[0] = 100 bytes is not a multiple of 16"},
		{"stride negative", mod(func(m *ir.TensorMap) { m.GlobalStrides[0] = -16 }), "globalStrides[0] = -16 bytes is outside 0..2^40-1"},
		{"stride too big", mod(func(m *ir.TensorMap) { m.GlobalStrides[0] = 1 << 40 }), "globalStrides[0] = 1099511627776 bytes is outside 0..2^40-1"},
		{"box zero", mod(func(m *ir.TensorMap) { m.Box[1] = 0 }), "boxDim[1] = 0 is outside 1..256"},
		{"box too big", mod(func(m *ir.TensorMap) { m.Box[1] = 257 }), "boxDim[1] = 257 is outside 1..256"},
		{"element stride", mod(func(m *ir.TensorMap) { m.ElemStrides[1] = 9 }), "elementStrides[1] = 9 is outside 1..8"},
		{"element stride 0", mod(func(m *ir.TensorMap) { m.ElemStrides[0] = 2 }), "elementStrides[0] = 2, want 1"},
		{"interleave value", mod(func(m *ir.TensorMap) { m.Interleave = 3 }), "interleave 3 is not 0 (NONE), 1 (16B) or 2 (32B)"},
		{"interleave rank", mod(func(m *ir.TensorMap) { m.Interleave = 1 }), "interleave 1 needs rank 3 or more, got rank 2"},
		{"interleave swizzle", mod(func(m *ir.TensorMap) {
			m.Rank, m.GlobalDims, m.GlobalStrides, m.Box, m.ElemStrides = 3, []int64{16, 4, 4}, []int64{32, 128}, []int64{16, 4, 4}, []int64{1, 1, 1}
			m.Interleave, m.Swizzle = 2, 3
		}), "interleave 2 (32B) needs swizzle 1 (32B), got swizzle 3"},
		{"interleave stride", mod(func(m *ir.TensorMap) {
			m.Rank, m.GlobalDims, m.GlobalStrides, m.Box, m.ElemStrides = 3, []int64{16, 4, 4}, []int64{48, 192}, []int64{16, 4, 4}, []int64{1, 1, 1}
			m.Interleave, m.Swizzle = 2, 1
		}), "globalStrides[0] = 48 bytes is not a multiple of 32 (interleave 32B)"},
		{"swizzle value", mod(func(m *ir.TensorMap) { m.Swizzle = 7 }), "swizzle 7 is outside 0..6"},
		{"l2 promotion", mod(func(m *ir.TensorMap) { m.L2Promotion = 4 }), "l2Promotion 4 is outside 0..3"},
		{"oob value", mod(func(m *ir.TensorMap) { m.OOBFill = 2 }), "oobFill 2 is not 0 (NONE) or 1 (NAN_REQUEST_ZERO_FMA)"},
		{"oob nan on ints", mod(func(m *ir.TensorMap) { m.DType, m.OOBFill = ir.Int32, 1; m.Box[0] = 32 }),
			"oobFill 1 (NAN_REQUEST_ZERO_FMA) needs a floating-point data type, got int32"},
		{"inner box bytes", mod(func(m *ir.TensorMap) { m.Box[0] = 4 }), "inner box boxDim[0] * 2 bytes = 8 bytes is not a multiple of 16"},
		{"swizzle span", mod(func(m *ir.TensorMap) { m.Swizzle = 2 }), "inner box boxDim[0] * 2 bytes = 128 bytes exceeds the 64-byte swizzle span"},
		{"swizzle 32B span", mod(func(m *ir.TensorMap) { m.Swizzle = 1; m.Box[0] = 32 }), "inner box boxDim[0] * 2 bytes = 64 bytes exceeds the 32-byte swizzle span"},
		{"dtype", mod(func(m *ir.TensorMap) { m.DType = ir.DataType{Code: ir.Int, Bits: 16} }), "dtype int16 has no CUtensorMapDataType"},
		{"force dtype", mod(func(m *ir.TensorMap) { m.ForceDType = 11 }), "CUtensorMapDataType 11 needs a float32 descriptor, got float16"},
		{"force dtype value", mod(func(m *ir.TensorMap) { m.ForceDType = 3 }), "forced CUtensorMapDataType 3 is not 10, 11 or 12"},
		{"not global", mod(func(m *ir.TensorMap) {
			m.Buf = &ir.Buffer{Name: "S", Shape: []int64{64, 64}, Dtype: ir.Float16, Scope: "shared", Kind: ir.AllocBuffer}
		}), `tensor map A_ptr_tensormap: buffer S is in scope "shared", want global`},
		{"not a parameter", mod(func(m *ir.TensorMap) {
			m.Buf = &ir.Buffer{Name: "G", Data: &ir.Var{Name: "g", Type: ir.HandleT}, Shape: []int64{64, 64}, Dtype: ir.Float16, Scope: "global", Kind: ir.DeclBuffer}
		}), "tensor map A_ptr_tensormap: buffer G is not a kernel parameter or a view of one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := cuda.Print(tmaKernel(tc.m, g2c(ir.Const(0), -1, "", int64(max(tc.m.Rank, 1)), make([]int64, max(tc.m.Rank, 1))...)), cuda.Options{})
			if err == nil {
				t.Fatalf("no error; printed:\n%s", src)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestAsyncCopyErrors: arch gates and malformed async-copy calls.
func TestAsyncCopyErrors(t *testing.T) {
	other := validMap(nil)
	for _, tc := range []struct {
		name  string
		arch  string
		calls []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call
		want  string
	}{
		{"bulk tensor below sm_90", "sm_80", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(0), -1, "", 2, 0, 0)},
			"ptx.cp_async.bulk.tensor.g2c needs sm_90 or later, target is sm_80"},
		{"s2g below sm_90", "sm_89", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{s2g("", "")},
			"ptx.cp_async.bulk.tensor.s2g needs sm_90 or later"},
		{"cta_group 2 on sm_90a", "sm_90a", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(0), 2, "", 2, 0, 0)},
			"ptx.cp_async.bulk.tensor.g2c with .cta_group::2 needs an arch-specific sm_100-family target (sm_100a, sm_100f, sm_103a, ...), target is sm_90a"},
		{"cta_group 1 on sm_100", "sm_100", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(0), 1, "", 2, 0, 0)},
			"with .cta_group::1 needs an arch-specific sm_100-family target"},
		{"cta_group 1 on sm_120a", "sm_120a", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(0), 1, "", 2, 0, 0)},
			"target is sm_120a"},
		{"cta_group value", "", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(0), 3, "", 2, 0, 0)},
			"cta_group 3 is not -1 (omit), 1 or 2"},
		{"cache hint", "", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(0), -1, "evict_last_use", 2, 0, 0)},
			`unsupported cache_hint "evict_last_use"`},
		{"rank mismatch", "", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(0), -1, "", 3, 0, 0, 0)},
			"rank 3 does not match tensor map A_ptr_tensormap of rank 2"},
		{"coordinate count", "", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(0), -1, "", 2, 0)},
			"ptx.cp_async.bulk.tensor.g2c takes 9 arguments, got 8"},
		{"mask outside cluster", "", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{g2c(ir.Const(5), -1, "", 2, 0, 0)},
			"cta_mask 0x5 names CTA 2, but the cluster has 2 CTAs"},
		{"reduce op", "", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{s2g("mul", "")}, `unknown reduction "mul"`},
		{"map not a parameter", "", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{
			func(_ *ir.TensorMap, s, bar ir.Expr) *ir.Call {
				return g2c(ir.Const(0), -1, "", 2, 0, 0)(other, s, bar)
			}},
			"tensor map A_ptr_tensormap is not a parameter of the kernel (missing from Func.TensorMaps)"},
		{"cp.async size", "", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{
			func(_ *ir.TensorMap, s, bar ir.Expr) *ir.Call {
				return &ir.Call{Op: ir.OpCpAsync, Args: []ir.Expr{s, s, ir.Const(2)}}
			}}, "ptx.cp_async of 2 bytes (want 4, 8 or 16)"},
		{"cp.async below sm_80", "sm_75", []func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call{
			func(_ *ir.TensorMap, s, bar ir.Expr) *ir.Call {
				return &ir.Call{Op: ir.OpCpAsync, Args: []ir.Expr{s, s, ir.Const(16)}}
			}}, "ptx.cp_async needs sm_80 or later, target is sm_75"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := cuda.Print(tmaKernel(nil, tc.calls...), cuda.Options{Arch: tc.arch})
			if err == nil {
				t.Fatalf("no error; printed:\n%s", src)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestAsyncCopyForms: the modifiers TVM's rules select (cta_group by arch,
// multicast by mask, cache hint by string) and the launcher's parts.
func TestAsyncCopyForms(t *testing.T) {
	tid := &ir.Var{Name: "mask", Type: ir.Int32}
	for _, tc := range []struct {
		name   string
		arch   string
		call   func(m *ir.TensorMap, s, bar ir.Expr) *ir.Call
		want   []string
		absent []string
	}{
		{"unicast", "sm_90a", g2c(ir.Const(2), -1, "", 2, 0, 0),
			[]string{"complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"}, []string{"multicast", "cta_group", "cache_hint"}},
		{"cta_group 1 omitted below sm_100", "sm_90a", g2c(ir.Const(0), 1, "", 2, 0, 0), nil, []string{"cta_group"}},
		{"cta_group 1 on sm_100a", "sm_100a", g2c(ir.Const(0), 1, "", 2, 0, 0),
			[]string{"complete_tx::bytes.cta_group::1 [%0]", "__CUDA_ARCH_FAMILY_SPECIFIC__"}, nil},
		{"multicast by mask value", "sm_90a", g2c(ir.Const(3), -1, "evict_first", 2, 0, 0),
			[]string{".multicast::cluster.L2::cache_hint [%0], [%1, {%5, %6}], [%2], %3, %4;", `"h"(cta_mask)`, ", 3, 0x12F0000000000000ull, 0, 0)"}, nil},
		{"multicast by variable mask", "sm_90a", g2c(tid, -1, "", 2, 0, 0),
			[]string{"_g2c_2d_multicast(", ", mask, 0, 0)"}, nil},
		{"s2g hint", "sm_90a", s2g("", "evict_last"),
			[]string{"cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [%0, {%3, %4}], [%1], %2;"}, nil},
		{"s2g reduce", "sm_90a", s2g("max", ""),
			[]string{"cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%0, {%2, %3}], [%1];"}, nil},
		{"launcher", "sm_90a", s2g("", ""),
			[]string{`extern "C" int k_launch(half* A_ptr, cudaStream_t stream)`, "CUtensorMap A_ptr_tensormap;",
				`{"A_ptr_tensormap", "float16", 6, 2, 1, 2, {64, 64}, {128}, {64, 64}, {1, 1}, 0, 0, 2, 0}`,
				"tilels_attrs[0].val.clusterDim.x = 2;", "cudaLaunchKernelEx(&tilels_config, k_kernel, A_ptr, A_ptr_tensormap)",
				"const __grid_constant__ CUtensorMap A_ptr_tensormap)", "__shared__ alignas(128) half A_s_ptr[4096];"},
			[]string{"cudaFuncSetAttribute"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := cuda.Print(tmaKernel(nil, tc.call), cuda.Options{Arch: tc.arch})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(src, w) {
					t.Errorf("missing %q in\n%s", w, src)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(src, a) {
					t.Errorf("unexpected %q in\n%s", a, src)
				}
			}
		})
	}
}

// TestLauncherDynamicSmem: the launcher asks for the shared.dyn arena the
// kernel declares when the launch gives no size (the dispatch pass sets
// none), opts in above 48 KiB, and refuses a launch that gives too little.
func TestLauncherDynamicSmem(t *testing.T) {
	mk := func(bytes, launch int64) []cuda.Kernel {
		b := &ir.Buffer{Name: "buf", Shape: []int64{bytes}, Dtype: ir.DataType{Code: ir.UInt, Bits: 8}, Scope: "shared.dyn", Kind: ir.AllocBuffer}
		k := kernel(&ir.Alloc{Buf: b})
		k[0].Launch.DynamicSmem = launch
		return k
	}
	src, err := cuda.Print(mk(60000, 0), cuda.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cudaFuncAttributeMaxDynamicSharedMemorySize, 60000);", "tilels_config.dynamicSmemBytes = 60000;"} {
		if !strings.Contains(src, want) {
			t.Errorf("missing %q in\n%s", want, src)
		}
	}
	src, err = cuda.Print(mk(4096, 0), cuda.Options{})
	if err != nil || strings.Contains(src, "cudaFuncSetAttribute") || !strings.Contains(src, "dynamicSmemBytes = 4096;") {
		t.Errorf("4 KiB arena: err %v, printed\n%s", err, src)
	}
	if _, err := cuda.Print(mk(4096, 1024), cuda.Options{}); err == nil ||
		!strings.Contains(err.Error(), "the launch gives 1024 bytes of dynamic shared memory, the kernel's shared.dyn buffers need 4096") {
		t.Errorf("short launch: err %v", err)
	}
}
