package cuda

// Printers of the gemm_async lowering (tcgen05 UMMA, sm_100a): the matrix
// and instruction descriptor encoders, the descriptor offset and tmem
// address helpers, and tcgen05.mma (dense and block-scaled) as inline PTX.
// The matrix descriptor encoder and the 16-byte descriptor offset are also
// used by the tcgen05 copies (ops_tcgen05_copy.go leaves them to this
// table).
// Helper names are the reference's, so the kernel bodies read alike; the
// bodies are written from the PTX ISA (tcgen05 matrix descriptor and
// instruction descriptor tables) with shifts instead of the reference's
// bitfield unions, so no helper depends on another.

import (
	"fmt"
	"github.com/tilels/tilels/release"
	"strings"
	"sync"

	"github.com/tilels/tilels/ir"
)

var gemmAsyncOps = map[string]extOp{
	ir.OpTcgen05EncodeMatrixDesc: {need: opNeed{sm: 100, family: true}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 5) {
			return ""
		}
		return k.callHelper(gaEncodeMatrixDescHelper, c.Args)
	}},
	ir.OpSmemDescAdd16B: {need: opNeed{sm: 100, family: true}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 2) {
			return ""
		}
		return k.callHelper(gaSmemDescAddHelper, c.Args)
	}},
	ir.OpSmemDescLoUniform: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 1) {
			return ""
		}
		return k.callHelper(smemDescLoUniformHelper, c.Args)
	}},
	ir.OpPtxShflSyncIdxB32: {print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 5) {
			return ""
		}
		return k.callHelper(shflSyncIdxB32Helper, c.Args)
	}},
	ir.OpGetTmemAddr: {need: opNeed{sm: 100, family: true}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 3) {
			return ""
		}
		return k.callHelper(getTmemAddrHelper, c.Args)
	}},
	ir.OpTcgen05EncodeInstrDescBlockScaled: {need: opNeed{sm: 100, family: true}, print: printEncodeInstrDescBS},
	ir.OpRuntimeInstrDesc: {need: opNeed{sm: 100, family: true}, print: func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 2) {
			return ""
		}
		return k.callHelper(runtimeInstrDescHelper, c.Args)
	}},
	ir.OpTcgen05MMA:           {need: opNeed{sm: 100, family: true}, print: printTcgen05MMA},
	ir.OpTcgen05MMABlockScale: {need: opNeed{sm: 100, family: true}, print: printTcgen05MMABlockScale},
}

// smemDescLoUniformHelper is 0.25's and 0.26's smem_desc_make_lo_uniform_
// (their T.cuda.func_call): the descriptor's low word from lane 0.
var smemDescLoUniformHelper = &helper{name: "smem_desc_make_lo_uniform_", rank: rankMatrix,
	code: `__forceinline__ __device__ void smem_desc_make_lo_uniform_(uint64_t* desc) {
  // the start address (low word) of lane 0, in every lane of the warp
  uint32_t lo = __shfl_sync(0xffffffff, static_cast<uint32_t>(*desc), 0);
  *desc = (*desc & 0xffffffff00000000ull) | lo;
}
`}

// shflSyncIdxB32Helper is 0.27's tvm_builtin_ptx_shfl_sync_idx_b32.
var shflSyncIdxB32Helper = &helper{name: "tvm_builtin_ptx_shfl_sync_idx_b32", rank: rankMatrix,
	code: `__forceinline__ __device__ void tvm_builtin_ptx_shfl_sync_idx_b32(uint32_t& __d, uint32_t __a, uint32_t __b, uint32_t __c, uint32_t __membermask) {
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, %3, %4;" : "=r"(__d) : "r"(__a), "r"(__b), "r"(__c), "r"(__membermask));
}
`}

func sm100Helper(name, code string) *helper {
	return &helper{name: name, rank: rankMatrix, minSM: 100, what: "tcgen05 (" + name + ")", sm100Family: true, code: code}
}

var gaEncodeMatrixDescHelper = sm100Helper("tvm_builtin_ptx_tcgen05_encode_matrix_descriptor",
	`__forceinline__ __device__ void tvm_builtin_ptx_tcgen05_encode_matrix_descriptor(uint64_t* desc, void* addr, int ldo, int sdo, int swizzle) {
  // tcgen05 shared memory descriptor: start address >> 4 [0,14), leading
  // byte offset >> 4 [16,30), stride byte offset >> 4 [32,46), version 1
  // [46,48), base offset 0 [49,52), lbo mode 0 [52], layout type [61,64).
  uint64_t layout_type = 0;
  switch (swizzle) {
    case 1: layout_type = 6; break;  // 32B swizzle
    case 2: layout_type = 4; break;  // 64B swizzle
    case 3: layout_type = 2; break;  // 128B swizzle
    case 4: layout_type = 1; break;  // 128B swizzle, 32B atomic base
    default: layout_type = 0; break; // no swizzle
  }
  uint32_t start_address = static_cast<uint32_t>(__cvta_generic_to_shared(addr));
  uint64_t d = 0;
  d |= static_cast<uint64_t>((start_address >> 4) & 0x3FFF);
  d |= static_cast<uint64_t>(static_cast<uint32_t>(ldo) & 0x3FFF) << 16;
  d |= static_cast<uint64_t>(static_cast<uint32_t>(sdo) & 0x3FFF) << 32;
  d |= static_cast<uint64_t>(1) << 46;
  d |= layout_type << 61;
  *desc = d;
}
`)

var gaSmemDescAddHelper = sm100Helper("tvm_builtin_smem_desc_add_16B_offset",
	`__forceinline__ __device__ uint64_t tvm_builtin_smem_desc_add_16B_offset(uint64_t desc_base, int32_t offset) {
  // Adds to the low word (the start address field), wrapping in 32 bits.
  uint32_t lo = static_cast<uint32_t>(desc_base) + static_cast<uint32_t>(offset);
  return (desc_base & 0xFFFFFFFF00000000ull) | static_cast<uint64_t>(lo);
}
`)

var getTmemAddrHelper = sm100Helper("tvm_builtin_cuda_get_tmem_addr",
	`__forceinline__ __device__ uint32_t tvm_builtin_cuda_get_tmem_addr(uint32_t addr, int row_offset, int col_offset) {
  // Tensor memory address: lane in bits [16,32), column in [0,16).
  uint32_t col = ((addr & 0xFFFFu) + static_cast<uint32_t>(col_offset)) & 0xFFFFu;
  uint32_t row = (((addr >> 16) & 0xFFFFu) + static_cast<uint32_t>(row_offset)) & 0xFFFFu;
  return (row << 16) | col;
}
`)

var runtimeInstrDescHelper = sm100Helper("tvm_builtin_cuda_runtime_instr_desc",
	`__forceinline__ __device__ void tvm_builtin_cuda_runtime_instr_desc(uint32_t* desc, const uint32_t& sf_id) {
  // Block-scaled instruction descriptor: a_sf_id [29,31), b_sf_id [4,6).
  *desc = (*desc & ~0x60000030u) | ((sf_id << 29) | (sf_id << 4));
}
`)

var encodeInstrDescBSHelper = sm100Helper("ptx_tcgen05_encode_instr_descriptor_block_scaled",
	`__forceinline__ __device__ void ptx_tcgen05_encode_instr_descriptor_block_scaled(uint32_t* desc, int M, int N, int a_format, int b_format, int s_format, bool trans_a, bool trans_b, bool neg_a, bool neg_b, bool is_sparse, bool k96) {
  // Block-scaled instruction descriptor: sparse [2], b_sf_id [4,6) = 0,
  // a_format [7,10), b_format [10,13), negate a/b [13], [14], a/b major
  // [15], [16], N >> 3 [17,23), scale format [23], M >> 4 [24,29),
  // a_sf_id [29,31) = 0, k_dim [31] (dense K=96, 0.27).
  uint32_t d = 0;
  d |= (static_cast<uint32_t>(is_sparse) & 1u) << 2;
  d |= (static_cast<uint32_t>(a_format) & 7u) << 7;
  d |= (static_cast<uint32_t>(b_format) & 7u) << 10;
  d |= (static_cast<uint32_t>(neg_a) & 1u) << 13;
  d |= (static_cast<uint32_t>(neg_b) & 1u) << 14;
  d |= (static_cast<uint32_t>(trans_a) & 1u) << 15;
  d |= (static_cast<uint32_t>(trans_b) & 1u) << 16;
  d |= (static_cast<uint32_t>(N >> 3) & 0x3Fu) << 17;
  d |= (static_cast<uint32_t>(s_format) & 1u) << 23;
  d |= (static_cast<uint32_t>(M >> 4) & 0x1Fu) << 24;
  d |= (static_cast<uint32_t>(k96) & 1u) << 31;
  *desc = d;
}
`)

// printEncodeInstrDescBS: args desc ptr, kind, cta_group, M, N, K,
// a_format, b_format, s_format, trans_a, trans_b (constants); it checks the
// shape as the reference's encoder does (_check_tcgen05_mma_matrix_shape).
func printEncodeInstrDescBS(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 11) {
		return ""
	}
	kind, ok := k.stringArg(c, 1)
	if !ok {
		return ""
	}
	vals := make([]int64, 9)
	for i := range vals {
		v, ok := k.constArg(c, i+2)
		if !ok {
			return ""
		}
		vals[i] = v
	}
	cg, m, n, kk := vals[0], vals[1], vals[2], vals[3]
	if !mmaShapeOK(kind, cg, m, n, kk, k.k96()) {
		k.fail("Invalid matrix shape for Tcgen05 MMA, check failed for kind: %s, is_sparse: False, cta_group: %d, M: %d, N: %d, K: %d", kind, cg, m, n, kk)
		return ""
	}
	if kind == "mxf4" || kind == "mxf4nvf4" {
		// Only fp8 operands may be MN-major in a block-scaled MMA.
		if vals[7] != 0 {
			k.fail("Invalid a_dtype for transpose: float4_e2m1fn")
			return ""
		}
		if vals[8] != 0 {
			k.fail("Invalid b_dtype for transpose: float4_e2m1fn")
			return ""
		}
	}
	k.use(encodeInstrDescBSHelper)
	return fmt.Sprintf("%s(%s, %d, %d, %d, %d, %d, (bool)%d, (bool)%d, (bool)0, (bool)0, (bool)0, (bool)%d)",
		encodeInstrDescBSHelper.name, k.top(c.Args[0]), m, n, vals[4], vals[5], vals[6], vals[7], vals[8], b2i(kk == 96))
}

// mmaShapeOK is _check_tcgen05_mma_matrix_shape for the dense (non-sparse)
// forms; k96 admits 0.27's dense K=96 of the two MXF4 kinds at cta_group 1
// with M=128 and cta_group 2 with M=256 (PTX ISA 9.7.18.2.1: sm_103a,
// sm_107a).
func mmaShapeOK(kind string, ctaGroup, m, n, kk int64, k96 bool) bool {
	if k96 && kk == 96 && (kind == "mxf4" || kind == "mxf4nvf4") && (ctaGroup == 1 && m == 128 || ctaGroup == 2 && m == 256) {
		kk = 64 // (the N rules are K=64's)
	}
	type rule struct {
		kinds  []string
		cg     int64
		nStep  map[int64]int64
		extraN []int64
	}
	rules := []rule{
		{[]string{"f16", "tf32", "f8f6f4"}, 1, map[int64]int64{64: 8, 128: 16}, nil},
		{[]string{"f16", "tf32", "f8f6f4"}, 2, map[int64]int64{128: 32, 256: 32}, nil},
		{[]string{"i8"}, 1, map[int64]int64{64: 16, 128: 16}, []int64{8, 24}},
		{[]string{"i8"}, 2, map[int64]int64{128: 32, 256: 32}, nil},
		{[]string{"mxf8f6f4", "mxf4", "mxf4nvf4"}, 1, map[int64]int64{128: 8}, nil},
		{[]string{"mxf8f6f4", "mxf4", "mxf4nvf4"}, 2, map[int64]int64{128: 16, 256: 16}, nil},
	}
	kDense := map[string]int64{"f16": 16, "tf32": 8, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32, "mxf4": 64, "mxf4nvf4": 64}
	for _, r := range rules {
		in := false
		for _, x := range r.kinds {
			in = in || x == kind
		}
		if !in || r.cg != ctaGroup {
			continue
		}
		step, ok := r.nStep[m]
		if !ok {
			return false
		}
		extra := false
		for _, e := range r.extraN {
			extra = extra || e == n
		}
		if !extra && !(step <= n && n <= 256 && n%step == 0) {
			return false
		}
		return kDense[kind] == kk
	}
	return false
}

// k96 reports whether the kernel's release takes the block-scaled dense
// K=96 (0.27: the descriptor's k_dim bit 31).
func (k *kernel) k96() bool { return k.fn != nil && k.fn.Release >= release.R027 }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var gaMMAHelpers sync.Map // name -> *helper

func cachedHelper(name string, build func() *helper) *helper {
	if h, ok := gaMMAHelpers.Load(name); ok {
		return h.(*helper)
	}
	h, _ := gaMMAHelpers.LoadOrStore(name, build())
	return h.(*helper)
}

// mmaPrefix reads kind, cta_group, use_a_tmem (args from..from+2).
func mmaHeader(k *kernel, c *ir.Call, from int) (kind string, cg int64, tmemA bool, ok bool) {
	kind, ok = k.stringArg(c, from)
	if !ok {
		return
	}
	cg, ok = k.constArg(c, from+1)
	if !ok {
		return
	}
	if cg != 1 && cg != 2 {
		k.fail("%s: cta_group must be 1 or 2, got %d", c.Op, cg)
		return "", 0, false, false
	}
	t, ok := k.constArg(c, from+2)
	return kind, cg, t != 0, ok
}

// mmaOperands prints d, a, b, idesc, enable: the instruction descriptor
// and enable_input_d constants as the reference prints them ((uint)v,
// (bool)v).
func (k *kernel) mmaOperands(args []ir.Expr) string {
	parts := []string{k.top(args[0]), k.top(args[1]), k.top(args[2])}
	if v, ok := ir.ConstInt(args[3]); ok {
		parts = append(parts, fmt.Sprintf("(uint)%d", uint32(v)))
	} else {
		parts = append(parts, k.top(args[3]))
	}
	if v, ok := ir.ConstInt(args[4]); ok {
		parts = append(parts, fmt.Sprintf("(bool)%d", v))
	} else {
		parts = append(parts, k.top(args[4]))
	}
	return strings.Join(parts, ", ")
}

// printTcgen05MMA: kind, cta_group, use_a_tmem, d, a, b, idesc, enable.
func printTcgen05MMA(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 8) {
		return ""
	}
	kind, cg, tmemA, ok := mmaHeader(k, c, 0)
	if !ok {
		return ""
	}
	switch kind {
	case "f16", "tf32", "f8f6f4", "i8":
	default:
		k.fail("tcgen05.mma: kind %q not in any supported PTX form (FP form 1 / Int form 5)", kind)
		return ""
	}
	ab := "SS"
	if tmemA {
		ab = "TS"
	}
	name := fmt.Sprintf("ptx_tcgen05_mma_cta_%d_kind_%s_%s", cg, kind, ab)
	h := cachedHelper(name, func() *helper { return denseMMAHelper(name, kind, cg, tmemA) })
	k.use(h)
	masks := 4
	if cg == 2 {
		masks = 8
	}
	return name + "(" + k.mmaOperands(c.Args[3:]) + strings.Repeat(", 0", masks) + ")"
}

func denseMMAHelper(name, kind string, cg int64, tmemA bool) *helper {
	masks := 4
	if cg == 2 {
		masks = 8
	}
	aType, aCon, aStr := "uint64_t", "l", "%1"
	if tmemA {
		aType, aCon, aStr = "uint32_t", "r", "[%1]"
	}
	var sig, phs, ins []string
	sig = []string{"uint32_t d_tmem_addr", aType + " a_operand", "uint64_t b_desc", "uint32_t i_desc", "uint32_t scaleC"}
	ins = []string{`"r"(d_tmem_addr)`, `"` + aCon + `"(a_operand)`, `"l"(b_desc)`, `"r"(i_desc)`, `"r"(scaleC)`}
	for i := range masks {
		sig = append(sig, fmt.Sprintf("uint32_t mask%d", i))
		phs = append(phs, fmt.Sprintf("%%%d", 5+i))
		ins = append(ins, fmt.Sprintf(`"r"(mask%d)`, i))
	}
	code := fmt.Sprintf(`__forceinline__ __device__ void %s(%s) {
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %%4, 0;\n"
      "tcgen05.mma.cta_group::%d.kind::%s [%%0], %s, %%2, %%3, "
      "{%s}, p;\n"
      "}\n"
      :
      : %s);
#else
  __trap();  // portable PTX: tcgen05 needs an sm_100-family arch-specific target
#endif
}
`, name, strings.Join(sig, ", "), cg, kind, aStr, strings.Join(phs, ", "), strings.Join(ins, ", "))
	return sm100Helper(name, code)
}

// printTcgen05MMABlockScale: kind, scale_vec, cta_group, use_a_tmem, d, a,
// b, idesc, enable, sfa, sfb.
func printTcgen05MMABlockScale(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 11) {
		return ""
	}
	kind, ok := k.stringArg(c, 0)
	if !ok {
		return ""
	}
	vec, ok := k.constArg(c, 1)
	if !ok {
		return ""
	}
	cg, ok := k.constArg(c, 2)
	if !ok {
		return ""
	}
	t, ok := k.constArg(c, 3)
	if !ok {
		return ""
	}
	tmemA := t != 0
	if kind == "" || vec == 0 {
		k.fail("Invalid multiplicand data types for Tcgen05 MMA (block-scaled): no kind for these data and scale-factor dtypes")
		return ""
	}
	ab := "SS"
	if tmemA {
		ab = "TS"
	}
	name := fmt.Sprintf("ptx_tcgen05_mma_block_scaled_cta_%d_kind_%s_scale_vec_%d_%s", cg, kind, vec, ab)
	h := cachedHelper(name, func() *helper { return blockScaledMMAHelper(name, kind, vec, cg, tmemA) })
	k.use(h)
	return name + "(" + k.mmaOperands(c.Args[4:9]) + ", " + k.top(c.Args[9]) + ", " + k.top(c.Args[10]) + ")"
}

func blockScaledMMAHelper(name, kind string, vec, cg int64, tmemA bool) *helper {
	aType, aCon, aStr := "uint64_t", "l", "%1"
	if tmemA {
		aType, aCon, aStr = "uint32_t", "r", "[%1]"
	}
	code := fmt.Sprintf(`__forceinline__ __device__ void %s(uint32_t d_tmem_addr, %s a_operand, uint64_t b_desc, uint32_t i_desc, uint32_t scaleC, uint32_t sfa_tmem_addr, uint32_t sfb_tmem_addr) {
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %%4, 0;\n"
      "tcgen05.mma.cta_group::%d.kind::%s.block_scale.scale_vec::%dX "
      "[%%0], %s, %%2, %%3, [%%5], [%%6], p;\n"
      "}\n"
      :
      : "r"(d_tmem_addr), "%s"(a_operand), "l"(b_desc), "r"(i_desc), "r"(scaleC), "r"(sfa_tmem_addr), "r"(sfb_tmem_addr));
#else
  __trap();  // portable PTX: tcgen05 needs an sm_100-family arch-specific target
#endif
}
`, name, aType, cg, kind, vec, aStr, aCon)
	return sm100Helper(name, code)
}
