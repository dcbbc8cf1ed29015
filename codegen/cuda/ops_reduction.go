package cuda

import (
	"fmt"

	"github.com/tilels/tilels/ir"
)

// reductionOps prints the intrinsics of the reduction lowering (see ext.go
// and ir/ops_reduction.go).
var reductionOps = map[string]extOp{
	ir.OpWarpShuffleXor: {print: func(k *kernel, c *ir.Call) string {
		// T.tvm_warp_shuffle_xor(mask, v, lane_mask, width, warp_size)
		if !k.wantArgs(c, 5) {
			return ""
		}
		return "__shfl_xor_sync(" + k.top(c.Args[0]) + ", " + k.top(c.Args[1]) + ", " + k.top(c.Args[2]) + ", " + k.top(c.Args[3]) + ")"
	}},
	ir.OpWarpActivemask: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 0) {
			return ""
		}
		return "__activemask()"
	}},
	ir.OpCudaWarpReduce: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 3) {
			return ""
		}
		op, ok1 := k.stringArg(c, 1)
		width, ok2 := k.constArg(c, 2)
		if !ok1 || !ok2 {
			return ""
		}
		h, ok := warpReduceHelper(op, width)
		if !ok {
			k.fail("%s: op %q of width %d (want sum, max or min over 2..32 lanes, a power of two)", c.Op, op, width)
			return ""
		}
		if op != "sum" {
			k.use(reduceMinMaxHelper)
		}
		return k.callHelper(h, c.Args[:1])
	}},
	ir.OpPtxAddF32x2: {need: opNeed{sm: 100}, print: func(k *kernel, c *ir.Call) string {
		// T.ptx.add_f32x2(d, a, b, rounding, ftz, sat)
		if !k.wantArgs(c, 6) {
			return ""
		}
		rnd, ok1 := k.stringArg(c, 3)
		ftz, ok2 := k.constArg(c, 4)
		sat, ok3 := k.constArg(c, 5)
		if !ok1 || !ok2 || !ok3 {
			return ""
		}
		switch rnd {
		case "rn", "rz", "rm", "rp":
		default:
			k.fail("%s: rounding %q (want rn, rz, rm or rp)", c.Op, rnd)
			return ""
		}
		if sat != 0 {
			k.fail("%s: PTX add.f32x2 does not accept .sat", c.Op)
			return ""
		}
		return k.callHelper(addF32x2Helper(rnd, ftz != 0), c.Args[:3])
	}},
	ir.OpCudaMakeFloat2: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 2) {
			return ""
		}
		return k.callHelper(makeFloat2Helper, c.Args)
	}},
	ir.OpPtxReduce3MaxF32: {need: opNeed{sm: 100}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 3) {
			return ""
		}
		return k.callHelper(reduce3Helpers["max"], c.Args)
	}},
	ir.OpPtxReduce3MinF32: {need: opNeed{sm: 100}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 3) {
			return ""
		}
		return k.callHelper(reduce3Helpers["min"], c.Args)
	}},
}

// reduceMinMaxHelper holds max/min overloads for every element type a
// warp_reduce may combine (CUDA's max/min take no __half or
// __nv_bfloat16); the warp_reduce templates call them, so they come first
// (same rank, the name sorts before tvm_builtin_).
var reduceMinMaxHelper = &helper{
	name: "tilels_reduce_minmax",
	rank: rankPacked,
	code: `__forceinline__ __device__ float tilels_reduce_max(float a, float b) { return fmaxf(a, b); }
__forceinline__ __device__ float tilels_reduce_min(float a, float b) { return fminf(a, b); }
__forceinline__ __device__ double tilels_reduce_max(double a, double b) { return fmax(a, b); }
__forceinline__ __device__ double tilels_reduce_min(double a, double b) { return fmin(a, b); }
__forceinline__ __device__ __half tilels_reduce_max(__half a, __half b) { return __hmax(a, b); }
__forceinline__ __device__ __half tilels_reduce_min(__half a, __half b) { return __hmin(a, b); }
__forceinline__ __device__ __nv_bfloat16 tilels_reduce_max(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmax(a, b); }
__forceinline__ __device__ __nv_bfloat16 tilels_reduce_min(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmin(a, b); }
__forceinline__ __device__ int tilels_reduce_max(int a, int b) { return max(a, b); }
__forceinline__ __device__ int tilels_reduce_min(int a, int b) { return min(a, b); }
__forceinline__ __device__ unsigned int tilels_reduce_max(unsigned int a, unsigned int b) { return max(a, b); }
__forceinline__ __device__ unsigned int tilels_reduce_min(unsigned int a, unsigned int b) { return min(a, b); }
`,
}

// warpReduceHelper is T.cuda.warp_reduce's template (TVM
// codegen_cuda_warp_reduce): log2(width) butterfly steps with descending
// xor masks over the full warp mask.
func warpReduceHelper(op string, width int64) (*helper, bool) {
	step, ok := map[string]string{
		"sum": "val += shuffled;",
		"max": "val = tilels_reduce_max(val, shuffled);",
		"min": "val = tilels_reduce_min(val, shuffled);",
	}[op]
	if !ok || width < 2 || width > 32 || width&(width-1) != 0 {
		return nil, false
	}
	name := fmt.Sprintf("tvm_builtin_cuda_warp_reduce_%s_%d", op, width)
	return &helper{name: name, rank: rankPacked, code: fmt.Sprintf(`template <typename T>
__forceinline__ __device__ T %s(T val) {
  #pragma unroll
  for (int mask = %d >> 1; mask > 0; mask >>= 1) {
    T shuffled = __shfl_xor_sync(0xFFFFFFFF, val, mask);
    %s
  }
  return val;
}
`, name, width, step)}, true
}

// addF32x2Helper is add{.rnd}{.ftz}.f32x2 [d], a, b (sm_100), a and b each
// two floats packed in 64 bits (TVM ptx_add_f32x2).
func addF32x2Helper(rnd string, ftz bool) *helper {
	mod, suf := "."+rnd, "_"+rnd
	if ftz {
		mod += ".ftz"
		suf += "_ftz"
	}
	name := "tvm_builtin_ptx_add_f32x2" + suf
	return &helper{name: name, rank: rankPacked, minSM: 100, what: "ptx.add_f32x2", code: fmt.Sprintf(
		`__forceinline__ __device__ void %s(void* d, unsigned long long a, unsigned long long b) {
  asm volatile("add%s.f32x2 %%0, %%1, %%2;"
      : "=l"(*reinterpret_cast<uint64_t*>(d))
      : "l"(a), "l"(b));
}
`, name, mod)}
}

// makeFloat2Helper packs two floats into 64 bits (TVM cuda_make_float2).
var makeFloat2Helper = &helper{
	name: "tvm_builtin_make_float2",
	rank: rankPacked,
	code: `__forceinline__ __device__ unsigned long long tvm_builtin_make_float2(float x, float y) {
  float2 value = make_float2(x, y);
  return *reinterpret_cast<unsigned long long*>(&value);
}
`,
}

// reduce3Helpers are the three-input max.f32 / min.f32 (sm_100).
var reduce3Helpers = map[string]*helper{
	"max": reduce3Helper("max"),
	"min": reduce3Helper("min"),
}

func reduce3Helper(op string) *helper {
	name := "tvm_builtin_ptx_reduce3_" + op + "_f32"
	return &helper{name: name, rank: rankPacked, minSM: 100, what: "ptx.reduce3_" + op + "_f32", code: fmt.Sprintf(
		`__forceinline__ __device__ float %s(float a, float b, float c) {
  float result;
  asm volatile("%s.f32 %%0, %%1, %%2, %%3;" : "=f"(result) : "f"(a), "f"(b), "f"(c));
  return result;
}
`, name, op)}
}
