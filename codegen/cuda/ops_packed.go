package cuda

import (
	"fmt"

	"github.com/tilels/tilels/ir"
)

// packedOps prints ir/ops_packed.go's intrinsics as the 0.27.0.post1
// reference's CUDA codegen does (helper names, parameters and asm text).
var packedOps = map[string]extOp{
	ir.OpPtxMovB64: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 3) {
			return ""
		}
		if typeOf(c.Args[2]).Bits == 64 {
			return k.callHelper(movUnpackB64Helper, c.Args)
		}
		return k.callHelper(movPackB64Helper, c.Args)
	}},
	ir.OpPtxMax3F32: {need: opNeed{sm: 100}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 4) {
			return ""
		}
		return k.callHelper(minMax3Helper("max"), c.Args)
	}},
	ir.OpPtxMin3F32: {need: opNeed{sm: 100}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 4) {
			return ""
		}
		return k.callHelper(minMax3Helper("min"), c.Args)
	}},
}

// movPackB64Helper is mov.b64 d, {a0, a1} (two float32 into a 64-bit pair).
var movPackB64Helper = &helper{
	name: "tvm_builtin_ptx_mov_pack_b32x2_b64_u64_f32",
	rank: rankPacked,
	code: `__forceinline__ __device__ void tvm_builtin_ptx_mov_pack_b32x2_b64_u64_f32(uint64_t& __d, float __a0, float __a1) {
  asm("mov.b64 %0, {%1, %2};" : "=l"(__d) : "f"(__a0), "f"(__a1));
}
`,
}

// movUnpackB64Helper is mov.b64 {d0, d1}, a (a 64-bit pair into two float32).
var movUnpackB64Helper = &helper{
	name: "tvm_builtin_ptx_mov_unpack_b32x2_b64_f32_u64",
	rank: rankPacked,
	code: `__forceinline__ __device__ void tvm_builtin_ptx_mov_unpack_b32x2_b64_f32_u64(float& __d0, float& __d1, uint64_t __a) {
  asm("mov.b64 {%0, %1}, %2;" : "=f"(__d0), "=f"(__d1) : "l"(__a));
}
`,
}

var minMax3Helpers = map[string]*helper{"max": newMinMax3Helper("max"), "min": newMinMax3Helper("min")}

func minMax3Helper(op string) *helper { return minMax3Helpers[op] }

// newMinMax3Helper is the three-source max.f32 / min.f32 d, a, b, c (sm_100).
func newMinMax3Helper(op string) *helper {
	name := "tvm_builtin_ptx_" + op + "3_f32"
	h := &helper{name: name, rank: rankPacked, minSM: 100, what: "ptx." + op + ".f32 (three sources)", code: fmt.Sprintf(
		`__forceinline__ __device__ void %s(float& __d, float __a, float __b, float __c) {
  asm volatile("%s.f32 %%0, %%1, %%2, %%3;" : "=f"(__d) : "f"(__a), "f"(__b), "f"(__c));
}
`, name, op)}
	return h
}
