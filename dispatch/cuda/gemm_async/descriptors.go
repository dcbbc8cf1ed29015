package gemmasync

// The three tcgen05 descriptors, encoded and decoded bit for bit as TVM
// encodes them:
//
//   - the dense instruction descriptor (TVM gemm_async/tcgen05.py
//     _encode_instr_descriptor_dense_uint32, the compile-time port of the
//     InstrDescriptor union in backend/cuda/operator/intrinsics/header.py);
//   - the block-scaled instruction descriptor (InstrDescriptorBlockScaled,
//     filled at run time by ptx_tcgen05_encode_instr_descriptor_block_scaled
//     with a_sf_id = b_sf_id = 0, then patched per MMA by
//     cuda_runtime_instr_desc: *desc = (*desc & ~0x60000030) |
//     (sf_id << 29) | (sf_id << 4));
//   - the shared-memory matrix descriptor (SmemDescriptor, filled at run
//     time by tvm_builtin_ptx_tcgen05_encode_matrix_descriptor: version 1,
//     lbo_mode 0, base_offset 0, layout type from the swizzle mode, start
//     address = the shared-window byte address >> 4).
//
// Only the instruction descriptor of a dense MMA is a compile-time constant
// in the lowered code; the others are computed by the kernel, and the plan
// shows what they will hold (the smem start address is shown for a buffer at
// shared-window offset 0, with the per-MMA 16-byte offsets listed apart).

import "fmt"

// instrFormat is TVM's _INSTR_DESC_FORMAT_MAP (the a/b/c format codes).
var instrFormat = map[string]uint32{
	"float16": 0, "bfloat16": 1, "tensor_float32": 2, "tf32": 2,
	"float8_e4m3fn": 0, "float8_e4m3fnuz": 0, "float8_e5m2": 1,
	"float6_e2m3fn": 3, "float6_e3m2fn": 4, "float4_e2m1fn": 5,
	"uint8": 0, "int8": 1, "float32": 1, "int32": 2,
}

// denseInstrDesc is _encode_instr_descriptor_dense_uint32 (neg, saturate and
// sparse off, as gemm_async calls it).
func denseInstrDesc(m, n int64, dType, aType, bType string, transA, transB bool) uint32 {
	var d uint32
	d |= (instrFormat[dType] & 0x3) << 4
	d |= (instrFormat[aType] & 0x7) << 7
	d |= (instrFormat[bType] & 0x7) << 10
	d |= b2u(transA) << 15
	d |= b2u(transB) << 16
	d |= (uint32(n>>3) & 0x3F) << 17
	d |= (uint32(m>>4) & 0x1F) << 24
	return d
}

// blockScaledFormats returns the a/b and scale-factor format codes the
// block-scaled encoder writes: for kind mxf8f6f4 the fp8 format map, for the
// fp4 kinds 1 (sic: TVM writes a_format = b_format = 1 there); s_format is 0
// for e4m3 scale factors and 1 for e8m0.
func blockScaledFormats(kind, aType, bType, sfType string) (a, b, s uint32) {
	fp8 := map[string]uint32{"float8_e4m3fn": 0, "float8_e4m3fnuz": 0, "float8_e5m2": 1,
		"float6_e2m3fn": 3, "float6_e3m2fn": 4, "float4_e2m1fn": 5}
	if kind == "mxf8f6f4" {
		a, b = fp8[aType], fp8[bType]
	} else {
		a, b = 1, 1
	}
	if sfType == "float8_e8m0fnu" {
		s = 1
	}
	return a, b, s
}

// blockScaledInstrDesc is InstrDescriptorBlockScaled as the block-scaled
// encoder fills it, with both scale-factor ids set to sfID (what
// cuda_runtime_instr_desc patches in; 0 before any patch).
func blockScaledInstrDesc(m, n int64, aFmt, bFmt, sFmt uint32, transA, transB bool, sfID uint32) uint32 {
	var d uint32
	d |= (sfID & 0x3) << 4
	d |= (aFmt & 0x7) << 7
	d |= (bFmt & 0x7) << 10
	d |= b2u(transA) << 15
	d |= b2u(transB) << 16
	d |= (uint32(n>>3) & 0x3F) << 17
	d |= (sFmt & 0x1) << 23
	d |= (uint32(m>>4) & 0x1F) << 24
	d |= (sfID & 0x3) << 29
	return d
}

// smemLayoutType is the SmemDescriptor layout_type_ for a swizzle mode
// (0 none, 1 32B, 2 64B, 3 128B, 4 128B with 32B base).
var smemLayoutType = map[int64]uint64{0: 0, 1: 6, 2: 4, 3: 2, 4: 1}

// smemDesc is tvm_builtin_ptx_tcgen05_encode_matrix_descriptor for a buffer
// at shared-window byte address addr.
func smemDesc(addr uint32, ldo, sdo, swizzle int64) uint64 {
	var d uint64
	d |= uint64((addr>>4)&0x3FFF) << 0
	d |= uint64(ldo&0x3FFF) << 16
	d |= uint64(sdo&0x3FFF) << 32
	d |= 1 << 46 // version
	d |= smemLayoutType[swizzle] << 61
	return d
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// ---- decoding, for the plan ----

func hex32(v uint32) string { return fmt.Sprintf("0x%08x", v) }
func hex64(v uint64) string { return fmt.Sprintf("0x%016x", v) }

var layoutTypeName = map[uint64]string{0: "SWIZZLE_NONE", 1: "SWIZZLE_128B_BASE32B", 2: "SWIZZLE_128B", 4: "SWIZZLE_64B", 6: "SWIZZLE_32B"}

// decodeSmemDesc lists the SmemDescriptor fields of d.
func decodeSmemDesc(d uint64) []field {
	lt := (d >> 61) & 7
	name := layoutTypeName[lt]
	if name == "" {
		name = "reserved"
	}
	return []field{
		{"start_address [0,14)", fmt.Sprintf("%d (byte address %d)", d&0x3FFF, (d&0x3FFF)<<4)},
		{"leading_byte_offset [16,30)", fmt.Sprintf("%d (%d bytes)", (d>>16)&0x3FFF, ((d>>16)&0x3FFF)<<4)},
		{"stride_byte_offset [32,46)", fmt.Sprintf("%d (%d bytes)", (d>>32)&0x3FFF, ((d>>32)&0x3FFF)<<4)},
		{"version [46,48)", fmt.Sprint((d >> 46) & 3)},
		{"base_offset [49,52)", fmt.Sprint((d >> 49) & 7)},
		{"lbo_mode [52,53)", fmt.Sprint((d >> 52) & 1)},
		{"layout_type [61,64)", fmt.Sprintf("%d (%s)", lt, name)},
	}
}

var majorName = map[uint32]string{0: "K-major", 1: "MN-major"}

// decodeDenseInstrDesc lists the InstrDescriptor fields of d.
func decodeDenseInstrDesc(d uint32, kind string) []field {
	return []field{
		{"sparse_flag [2]", fmt.Sprint((d >> 2) & 1)},
		{"saturate [3]", fmt.Sprint((d >> 3) & 1)},
		{"c_format [4,6)", fmt.Sprintf("%d (%s)", (d>>4)&3, map[uint32]string{0: "F16", 1: "F32", 2: "S32"}[(d>>4)&3])},
		{"a_format [7,10)", fmt.Sprintf("%d (%s)", (d>>7)&7, formatName(kind, (d>>7)&7))},
		{"b_format [10,13)", fmt.Sprintf("%d (%s)", (d>>10)&7, formatName(kind, (d>>10)&7))},
		{"a_negate [13]", fmt.Sprint((d >> 13) & 1)},
		{"b_negate [14]", fmt.Sprint((d >> 14) & 1)},
		{"a_major [15]", fmt.Sprintf("%d (%s)", (d>>15)&1, majorName[(d>>15)&1])},
		{"b_major [16]", fmt.Sprintf("%d (%s)", (d>>16)&1, majorName[(d>>16)&1])},
		{"n_dim = N>>3 [17,23)", fmt.Sprintf("%d (N=%d)", (d>>17)&0x3F, ((d>>17)&0x3F)<<3)},
		{"m_dim = M>>4 [24,29)", fmt.Sprintf("%d (M=%d)", (d>>24)&0x1F, ((d>>24)&0x1F)<<4)},
		{"max_shift [30,32)", fmt.Sprint((d >> 30) & 3)},
	}
}

// decodeBlockScaledInstrDesc lists the InstrDescriptorBlockScaled fields.
func decodeBlockScaledInstrDesc(d uint32, kind string) []field {
	return []field{
		{"sparse_flag [2]", fmt.Sprint((d >> 2) & 1)},
		{"b_sf_id [4,6)", fmt.Sprint((d >> 4) & 3)},
		{"a_format [7,10)", fmt.Sprintf("%d (%s)", (d>>7)&7, formatName(kind, (d>>7)&7))},
		{"b_format [10,13)", fmt.Sprintf("%d (%s)", (d>>10)&7, formatName(kind, (d>>10)&7))},
		{"a_negate [13]", fmt.Sprint((d >> 13) & 1)},
		{"b_negate [14]", fmt.Sprint((d >> 14) & 1)},
		{"a_major [15]", fmt.Sprintf("%d (%s)", (d>>15)&1, majorName[(d>>15)&1])},
		{"b_major [16]", fmt.Sprintf("%d (%s)", (d>>16)&1, majorName[(d>>16)&1])},
		{"n_dim = N>>3 [17,23)", fmt.Sprintf("%d (N=%d)", (d>>17)&0x3F, ((d>>17)&0x3F)<<3)},
		{"scale_format [23]", fmt.Sprintf("%d (%s)", (d>>23)&1, map[uint32]string{0: "E4M3", 1: "E8M0"}[(d>>23)&1])},
		{"m_dim = M>>4 [24,29)", fmt.Sprintf("%d (M=%d)", (d>>24)&0x1F, ((d>>24)&0x1F)<<4)},
		{"a_sf_id [29,31)", fmt.Sprint((d >> 29) & 3)},
	}
}

func formatName(kind string, f uint32) string {
	switch kind {
	case "f16", "tf32":
		return map[uint32]string{0: "F16", 1: "BF16", 2: "TF32"}[f]
	case "i8":
		return map[uint32]string{0: "U8", 1: "S8"}[f]
	case "mxf4", "mxf4nvf4":
		return map[uint32]string{1: "E2M1 (fp4 kinds)"}[f]
	}
	return map[uint32]string{0: "E4M3", 1: "E5M2", 3: "E2M3", 4: "E3M2", 5: "E2M1"}[f]
}

// field is one decoded descriptor field.
type field struct{ key, value string }
