package cuda

import (
	"fmt"

	"github.com/tilels/tilels/ir"
)

// packedOps prints ir/ops_packed.go's intrinsics as the 0.27.0.post1
// reference's CUDA codegen does (helper names, parameters and asm text).
var packedOps = map[string]extOp{
	ir.OpPtxMapaU64: {need: opNeed{sm: 90}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 3) {
			return ""
		}
		return k.callHelper(mapaU64Helper, c.Args)
	}},
	ir.OpCpAsyncBulkS2CStr: {need: opNeed{sm: 90}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 4) {
			return ""
		}
		k.use(bulkS2CStrHelper)
		k.use(cvtaSharedHelper027)
		return bulkS2CStrHelper.name + "(" + k.top(c.Args[0]) + ", " + cvtaSharedHelper027.name + "(" + k.top(c.Args[1]) + "), " +
			k.top(c.Args[2]) + ", " + k.top(c.Args[3]) + ")"
	}},
	ir.OpPtxLdSharedPlain: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 1) {
			return ""
		}
		h, ok := ldSharedPlainHelpers[c.Type.Bits]
		if !ok || c.Type.Code != ir.UInt {
			k.fail("%s: type %s (want uint32 or uint64)", c.Op, c.Type)
			return ""
		}
		k.use(h)
		return h.name + "(" + k.top(c.Args[0]) + ", (uint64_t)0)"
	}},
	ir.OpPtxStSharedPlain: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 2) {
			return ""
		}
		h, ok := stSharedPlainHelpers[typeOf(c.Args[1]).Bits]
		if !ok {
			k.fail("%s: value of type %s (want 32 or 64 bits)", c.Op, typeOf(c.Args[1]))
			return ""
		}
		k.use(h)
		return h.name + "(" + k.top(c.Args[0]) + ", " + k.top(c.Args[1]) + ", (uint64_t)0)"
	}},
	ir.OpPtxMovB64: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 3) {
			return ""
		}
		// 32-bit integer halves (0.27's descriptor shuffle) or float32 ones
		words := typeOf(c.Args[0]).Code == ir.UInt && typeOf(c.Args[0]).Bits == 32
		if typeOf(c.Args[2]).Bits == 64 {
			if words {
				return k.callHelper(movUnpackB64U32Helper, c.Args)
			}
			return k.callHelper(movUnpackB64Helper, c.Args)
		}
		if typeOf(c.Args[1]).Code == ir.UInt && typeOf(c.Args[1]).Bits == 32 {
			return k.callHelper(movPackB64U32Helper, c.Args)
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

// movPackB64U32Helper is mov.b64 d, {a0, a1} of two 32-bit words.
var movPackB64U32Helper = &helper{
	name: "tvm_builtin_ptx_mov_pack_b32x2_b64",
	rank: rankPacked,
	code: `__forceinline__ __device__ void tvm_builtin_ptx_mov_pack_b32x2_b64(uint64_t& __d, uint32_t __a0, uint32_t __a1) {
  asm("mov.b64 %0, {%1, %2};" : "=l"(__d) : "r"(__a0), "r"(__a1));
}
`,
}

// movUnpackB64U32Helper is mov.b64 {d0, d1}, a into two 32-bit words.
var movUnpackB64U32Helper = &helper{
	name: "tvm_builtin_ptx_mov_unpack_b32x2_b64",
	rank: rankPacked,
	code: `__forceinline__ __device__ void tvm_builtin_ptx_mov_unpack_b32x2_b64(uint32_t& __d0, uint32_t& __d1, uint64_t __a) {
  asm("mov.b64 {%0, %1}, %2;" : "=r"(__d0), "=r"(__d1) : "l"(__a));
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

// ldSharedPlainHelpers are the reference's tvm_builtin_ptx_ld_plain_None_
// shared_b<N>_uint<N> (the b32 text as 0.26.0 emits it; b64 by analogy).
var ldSharedPlainHelpers = map[int]*helper{32: ldSharedPlain(32, "unsigned int", "r"), 64: ldSharedPlain(64, "unsigned long long", "l")}

func ldSharedPlain(bits int, ctype, cons string) *helper {
	name := fmt.Sprintf("tvm_builtin_ptx_ld_plain_None_shared_b%d_uint%d", bits, bits)
	return &helper{name: name, rank: rankPacked, code: fmt.Sprintf(`__forceinline__ __device__ %s %s(void* address, unsigned long long cache_policy) {
    %s ret;
    unsigned int addr = (unsigned int)__cvta_generic_to_shared(address);
    asm volatile("ld.shared.b%d %%0, [%%1];"
                 : "=%s"(ret)
                 : "r"(addr));
    return ret;
}
`, ctype, name, ctype, bits, cons)}
}

// stSharedPlainHelpers are tvm_builtin_ptx_st_plain_shared_b<N>_values.
var stSharedPlainHelpers = map[int]*helper{32: stSharedPlain(32, "unsigned int", "r"), 64: stSharedPlain(64, "unsigned long long", "l")}

func stSharedPlain(bits int, ctype, cons string) *helper {
	name := fmt.Sprintf("tvm_builtin_ptx_st_plain_shared_b%d_values", bits)
	return &helper{name: name, rank: rankPacked, code: fmt.Sprintf(`__forceinline__ __device__ void %s(void* address, %s value0, unsigned long long cache_policy) {
    unsigned int addr = (unsigned int)__cvta_generic_to_shared(address);
    asm volatile("st.shared.b%d [%%0], %%1;"
                 :
                 : "r"(addr), "%s"(value0)
                 : "memory");
}
`, name, ctype, bits, cons)}
}

// mapaU64Helper is the reference's tvm_builtin_ptx_mapa_u64.
var mapaU64Helper = &helper{
	name: "tvm_builtin_ptx_mapa_u64",
	rank: rankPacked,
	code: `__forceinline__ __device__ void tvm_builtin_ptx_mapa_u64(uint64_t& __d, const void* __a, uint32_t __b) {
  asm("mapa.u64 %0, %1, %2;" : "=l"(__d) : "l"(__a), "r"(__b));
}
`,
}

// bulkS2CStrHelper is the reference's helper of the string op (its name
// verbatim).
var bulkS2CStrHelper = &helper{
	name: "tvm_builtin_ptx_cp_async_bulk_s2c_async_bulk_shared__cluster_shared__cta_mbarrier__complete_tx__bytes",
	rank: rankPacked,
	code: `__forceinline__ __device__ void tvm_builtin_ptx_cp_async_bulk_s2c_async_bulk_shared__cluster_shared__cta_mbarrier__complete_tx__bytes(uint32_t __dst_mem, uint32_t __src_mem, uint32_t __size, uint32_t __mbar) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :  : "r"(__dst_mem), "r"(__src_mem), "r"(__size), "r"(__mbar) : "memory");
}
`,
}

// cvtaSharedHelper027 is tvm_builtin_cuda_cvta_generic_to_shared.
var cvtaSharedHelper027 = cvtaToSharedHelper
