package cuda

import (
	"fmt"

	"github.com/tilels/tilels/ir"
)

// The instruction-descriptor encoders a kernel calls itself (0.26 and
// later, backend/cuda/op.py and cpp/descriptors.py):
//
//	T.cuda.tcgen05.encode_instr_descriptor(desc, d_dtype=, a_dtype=, b_dtype=,
//	    M=, N=, K=, trans_a=, trans_b=, n_cta_groups=1, neg_a=False, neg_b=False,
//	    sat_d=False, is_sparse=False)
//	T.cuda.tcgen05.encode_instr_descriptor_block_scaled(desc, d_dtype=, a_dtype=,
//	    b_dtype=, sfa_dtype=, sfb_dtype=, sfa_tmem_addr=, sfb_tmem_addr=, M=, N=, K=,
//	    trans_a=, trans_b=, n_cta_groups=1, neg_a=False, neg_b=False, is_sparse=False)
//
// The evaluator passes the keywords in that order. As the reference's
// codegen, the dtypes pick the MMA kind and the format fields, the shape
// is checked for the kind and CTA group, transposes, negation and
// saturation are checked against the dtypes, and a device helper stores
// the 32-bit descriptor through desc. A sparse descriptor is not modelled.
func userDescOp(op string) *extOp {
	switch op {
	case "cuda.tcgen05.encode_instr_descriptor":
		return user(opNeed{sm: 100, family: true}, printUserInstrDesc)
	case "cuda.tcgen05.encode_instr_descriptor_block_scaled":
		return user(opNeed{sm: 100, family: true}, printUserInstrDescBS)
	}
	return nil
}

// denseFormat is the format field of a dense descriptor's operand (and
// the D format of float16 / float32 / int32).
var denseFormat = map[string]int64{
	"float16": 0, "bfloat16": 1, "tensor_float32": 2, "tf32": 2,
	"float8_e4m3fn": 0, "float8_e4m3fnuz": 0, "float8_e5m2": 1,
	"float6_e2m3fn": 3, "float6_e3m2fn": 4, "float4_e2m1fn": 5,
	"uint8": 0, "int8": 1, "float32": 1, "int32": 2,
}

// denseMMAKind is _get_tcgen05_mma_kind(d, a, b) for the dense kinds ("" when
// none applies).
func denseMMAKind(d, a, b string) string {
	narrow := map[string]bool{"float8_e4m3fn": true, "float8_e4m3fnuz": true, "float8_e5m2": true,
		"float6_e2m3fn": true, "float6_e3m2fn": true, "float4_e2m1fn": true}
	switch {
	case (d == "float16" || d == "float32") && (a == "float16" || a == "bfloat16") && a == b:
		if a == "bfloat16" && d != "float32" {
			return ""
		}
		return "f16"
	case d == "float32" && (a == "tf32" || a == "tensor_float32") && (b == "tf32" || b == "tensor_float32"):
		return "tf32"
	case (d == "float16" || d == "float32") && narrow[a] && narrow[b]:
		return "f8f6f4"
	case d == "int32" && (a == "int8" || a == "uint8") && (b == "int8" || b == "uint8"):
		return "i8"
	}
	return ""
}

// userDescArgs reads the string and constant arguments of an encoder call
// from index from: strs strings, then the rest constants (defaults for
// those the call leaves out).
func userDescArgs(k *kernel, c *ir.Call, strs int, consts []int64, from int) ([]string, []int64, bool) {
	var ss []string
	for i := range strs {
		s, ok := k.stringArg(c, from+i)
		if !ok {
			return nil, nil, false
		}
		ss = append(ss, s)
	}
	vals := append([]int64(nil), consts...)
	for i := range vals {
		j := from + strs + i
		if j >= len(c.Args) {
			if vals[i] < 0 {
				k.fail("%s takes at least %d arguments, got %d", c.Op, j+1, len(c.Args))
				return nil, nil, false
			}
			continue // its default
		}
		v, ok := k.constArg(c, j)
		if !ok {
			return nil, nil, false
		}
		vals[i] = v
	}
	return ss, vals, true
}

func printUserInstrDesc(k *kernel, c *ir.Call) string {
	if len(c.Args) < 10 || len(c.Args) > 14 {
		k.fail("%s takes 10 to 14 arguments, got %d", c.Op, len(c.Args))
		return ""
	}
	// M, N, K, trans_a, trans_b required (-1); n_cta_groups 1; neg_a,
	// neg_b, sat_d, is_sparse False
	ss, v, ok := userDescArgs(k, c, 3, []int64{-1, -1, -1, -1, -1, 1, 0, 0, 0, 0}, 1)
	if !ok {
		return ""
	}
	d, a, b := ss[0], ss[1], ss[2]
	m, n, kk, transA, transB, cg, negA, negB, sat, sparse := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]
	if !k.descGroupOK(cg, sparse) {
		return ""
	}
	kind := denseMMAKind(d, a, b)
	if kind == "" {
		k.fail("Check failed for Data Type Kind. d_dtype: %s, a_dtype: %s, b_dtype: %s", d, a, b)
		return ""
	}
	if !mmaShapeOK(kind, cg, m, n, kk, false) {
		k.fail("Invalid matrix shape for Tcgen05 MMA, check failed for kind: %s, is_sparse: False, cta_group: %d, M: %d, N: %d, K: %d", kind, cg, m, n, kk)
		return ""
	}
	transOK := map[string]bool{"float8_e4m3fn": true, "float8_e4m3fnuz": true, "float8_e5m2": true, "int8": true,
		"uint8": true, "float16": true, "bfloat16": true, "tensor_float32": true, "tf32": true}
	switch {
	case transA != 0 && !transOK[a]:
		k.fail("Invalid a_dtype for transpose: %s", a)
	case transB != 0 && !transOK[b]:
		k.fail("Invalid b_dtype for transpose: %s", b)
	case (negA != 0 || negB != 0) && kind == "i8":
		k.fail("Invalid kind for negate: %s", kind)
	case sat != 0 && kind != "i8":
		k.fail("Invalid kind for saturate: %s", kind)
	default:
		k.use(encodeInstrDescHelper)
		return fmt.Sprintf("%s(%s, %d, %d, %d, %d, %d, (bool)%d, (bool)%d, (bool)%d, (bool)%d, (bool)%d, (bool)0)",
			encodeInstrDescHelper.name, k.top(c.Args[0]), m, n, denseFormat[d], denseFormat[a], denseFormat[b],
			transA, transB, negA, negB, sat)
	}
	return ""
}

var encodeInstrDescHelper = sm100Helper("ptx_tcgen05_encode_instr_descriptor",
	`__forceinline__ __device__ void ptx_tcgen05_encode_instr_descriptor(uint32_t* desc, int M, int N, int d_format, int a_format, int b_format, bool trans_a, bool trans_b, bool neg_a, bool neg_b, bool sat_d, bool is_sparse) {
  // Dense instruction descriptor: sparse [2], saturate [3], D format
  // [4,6), a_format [7,10), b_format [10,13), negate a/b [13], [14], a/b
  // major [15], [16], N >> 3 [17,23), M >> 4 [24,29), max shift 0.
  uint32_t d = 0;
  d |= (static_cast<uint32_t>(is_sparse) & 1u) << 2;
  d |= (static_cast<uint32_t>(sat_d) & 1u) << 3;
  d |= (static_cast<uint32_t>(d_format) & 3u) << 4;
  d |= (static_cast<uint32_t>(a_format) & 7u) << 7;
  d |= (static_cast<uint32_t>(b_format) & 7u) << 10;
  d |= (static_cast<uint32_t>(neg_a) & 1u) << 13;
  d |= (static_cast<uint32_t>(neg_b) & 1u) << 14;
  d |= (static_cast<uint32_t>(trans_a) & 1u) << 15;
  d |= (static_cast<uint32_t>(trans_b) & 1u) << 16;
  d |= (static_cast<uint32_t>(N >> 3) & 0x3Fu) << 17;
  d |= (static_cast<uint32_t>(M >> 4) & 0x1Fu) << 24;
  *desc = d;
}
`)

func printUserInstrDescBS(k *kernel, c *ir.Call) string {
	if len(c.Args) < 13 || len(c.Args) > 17 {
		k.fail("%s takes 13 to 17 arguments, got %d", c.Op, len(c.Args))
		return ""
	}
	// (the scale factors' tmem addresses, arguments 6 and 7, are not
	// part of the descriptor: its sf ids start at 0)
	ss, _, ok := userDescArgs(k, c, 5, nil, 1)
	if !ok {
		return ""
	}
	_, v, ok := userDescArgs(k, c, 0, []int64{-1, -1, -1, -1, -1, 1, 0, 0, 0}, 8)
	if !ok {
		return ""
	}
	a, b, sfa := ss[1], ss[2], ss[3]
	m, n, kk, transA, transB, cg, negA, negB, sparse := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
	if !k.descGroupOK(cg, sparse) {
		return ""
	}
	fp8 := map[string]bool{"float8_e4m3fn": true, "float8_e4m3fnuz": true, "float8_e5m2": true}
	narrow := map[string]bool{"float8_e4m3fn": true, "float8_e4m3fnuz": true, "float8_e5m2": true,
		"float6_e2m3fn": true, "float6_e3m2fn": true, "float4_e2m1fn": true}
	kind := ""
	switch {
	case a == "float4_e2m1fn" && b == "float4_e2m1fn" && sfa == "float8_e8m0fnu":
		kind = "mxf4"
	case a == "float4_e2m1fn" && b == "float4_e2m1fn" && sfa == "float8_e4m3fn":
		kind = "mxf4nvf4"
	case narrow[a] && narrow[b] && sfa == "float8_e8m0fnu":
		kind = "mxf8f6f4"
	}
	if kind == "" {
		k.fail("Check failed for Data Type Kind. Expected one of {'mxf8f6f4', 'mxf4', 'mxf4nvf4'}, but got '' for d:%s, a:%s, b:%s, sfa:%s, sfb:%s", ss[0], a, b, sfa, ss[4])
		return ""
	}
	if !mmaShapeOK(kind, cg, m, n, kk, k.k96()) {
		k.fail("Invalid matrix shape for Tcgen05 MMA, check failed for kind: %s, is_sparse: False, cta_group: %d, M: %d, N: %d, K: %d", kind, cg, m, n, kk)
		return ""
	}
	if transA != 0 && !fp8[a] {
		k.fail("Invalid a_dtype for transpose: %s", a)
		return ""
	}
	if transB != 0 && !fp8[b] {
		k.fail("Invalid b_dtype for transpose: %s", b)
		return ""
	}
	af, bf := int64(1), int64(1)
	if kind == "mxf8f6f4" {
		af, bf = denseFormat[a], denseFormat[b]
	}
	sf := int64(1) // ue8m0
	if sfa != "float8_e8m0fnu" {
		sf = 0
	}
	k.use(encodeInstrDescBSHelper)
	return fmt.Sprintf("%s(%s, %d, %d, %d, %d, %d, (bool)%d, (bool)%d, (bool)%d, (bool)%d, (bool)0, (bool)%d)",
		encodeInstrDescBSHelper.name, k.top(c.Args[0]), m, n, af, bf, sf, transA, transB, negA, negB, b2i(kk == 96))
}

// descGroupOK checks an encoder's n_cta_groups (1 or 2) and refuses a
// sparse descriptor, which tilels does not model.
func (k *kernel) descGroupOK(cg, sparse int64) bool {
	if cg != 1 && cg != 2 {
		k.fail("n_cta_groups must be 1 or 2, got %d", cg)
		return false
	}
	if sparse != 0 {
		k.fail("not modelled: a sparse tcgen05 instruction descriptor")
		return false
	}
	return true
}
