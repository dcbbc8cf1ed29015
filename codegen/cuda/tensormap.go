package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// Tensor-map descriptors (spec §5.5). Every ir.TensorMap of a kernel is
// checked twice against the rules cuTensorMapEncodeTiled documents (the
// CUDA 13.5 driver header) and TVM's runtime wrapper enforces:
//
//   - here, at generation time, on the IR's constants: a violation is a
//     codegen error "tensor map <name>: <rule>", so no bad descriptor is
//     ever printed;
//   - in the generated launcher (tilels_encode_tiled in host.go), before
//     the driver is called, because a hand-edited .cu or a misaligned
//     pointer must fail with a message rather than with
//     CUDA_ERROR_INVALID_VALUE. The pointer's alignment is only known there.
//
// Both use the message formats below, so the texts agree. A format takes
// only %d (int64 values; C prints them with %lld) and %s.
const (
	msgRank        = "rank %d is outside 1..5"
	msgGlobalDim   = "globalDim[%d] = %d is outside 1..2^31"
	msgStrideRange = "globalStrides[%d] = %d bytes is outside 0..2^40-1"
	msgStride16    = "globalStrides[%d] = %d bytes is not a multiple of 16"
	msgStride32    = "globalStrides[%d] = %d bytes is not a multiple of 32 (interleave 32B)"
	msgBox         = "boxDim[%d] = %d is outside 1..256"
	msgElemStride  = "elementStrides[%d] = %d is outside 1..8"
	msgElemStride0 = "elementStrides[0] = %d, want 1"
	msgInterleave  = "interleave %d is not 0 (NONE), 1 (16B) or 2 (32B)"
	msgInterRank   = "interleave %d needs rank 3 or more, got rank %d"
	msgInterSwz    = "interleave 2 (32B) needs swizzle 1 (32B), got swizzle %d"
	msgSwizzle     = "swizzle %d is outside 0..6"
	msgL2          = "l2Promotion %d is outside 0..3"
	msgOOB         = "oobFill %d is not 0 (NONE) or 1 (NAN_REQUEST_ZERO_FMA)"
	msgOOBFloat    = "oobFill 1 (NAN_REQUEST_ZERO_FMA) needs a floating-point data type, got %s"
	msgInnerBox    = "inner box boxDim[0] * %d bytes = %d bytes is not a multiple of 16"
	msgSwizzleBox  = "inner box boxDim[0] * %d bytes = %d bytes exceeds the %d-byte swizzle span"
	// Checked by the launcher only.
	msgAddress = "global address 0x%x is not %d-byte aligned"
)

// Descriptor limits (cuda.h of CUDA 13.5, cuTensorMapEncodeTiled). The
// driver header of CUDA 12 allowed globalDim up to 2^32; CUDA 13 documents
// 2^31, and nvcc 13 is the target.
const (
	maxGlobalDim    = int64(1) << 31
	maxGlobalStride = int64(1) << 40
)

// cuTensorMapDataType values (CUtensorMapDataType in cuda.h).
const (
	cuUint8    = 0
	cuUint16   = 1
	cuUint32   = 2
	cuInt32    = 3
	cuUint64   = 4
	cuInt64    = 5
	cuFloat16  = 6
	cuFloat32  = 7
	cuFloat64  = 8
	cuBFloat16 = 9
	cuF32FTZ   = 10
	cuTF32     = 11
	cuTF32FTZ  = 12
)

// tmSpec is one descriptor in the form the launcher passes to
// tilels_encode_tiled: every array in CUDA order (innermost first).
type tmSpec struct {
	name      string // the kernel parameter
	dtype     string // TVM name of the element type, for messages
	cuDType   int    // CUtensorMapDataType
	elemBytes int64
	isFloat   bool // the CUtensorMapDataType is a floating-point type
	rank      int
	dims      []int64
	dimExprs  []ir.Expr // nil, or rank entries: a runtime dimension (dims holds 0)
	strides   []int64   // bytes, rank-1 entries
	box       []int64
	elemStr   []int64
	// CUtensorMap enum values.
	interleave int
	swizzle    int
	l2         int
	oob        int
}

// cuDataType maps a descriptor element type to its CUtensorMapDataType
// (spec §5.5 dtype map; int16 has none).
func cuDataType(t ir.DataType) (int, bool) {
	switch t.Code {
	case ir.Int:
		switch t.Bits {
		case 8:
			return cuUint8, true
		case 32:
			return cuInt32, true
		case 64:
			return cuInt64, true
		}
	case ir.UInt:
		switch t.Bits {
		case 8:
			return cuUint8, true
		case 16:
			return cuUint16, true
		case 32:
			return cuUint32, true
		case 64:
			return cuUint64, true
		}
	case ir.Float:
		switch t.Bits {
		case 16:
			return cuFloat16, true
		case 32:
			return cuFloat32, true
		case 64:
			return cuFloat64, true
		}
	case ir.BFloat:
		return cuBFloat16, true
	case ir.Float8E4M3, ir.Float8E5M2:
		return cuUint8, true
	}
	return 0, false
}

// newTMSpec converts m (whose kernel parameter is called name) and checks
// every rule that its constants decide.
func newTMSpec(m *ir.TensorMap, name string) (tmSpec, error) {
	s := tmSpec{name: name, dtype: m.DType.String(), rank: m.Rank, dims: m.GlobalDims, dimExprs: m.GlobalDimExprs, strides: m.GlobalStrides,
		box: m.Box, elemStr: m.ElemStrides, interleave: m.Interleave, swizzle: m.Swizzle, l2: m.L2Promotion, oob: m.OOBFill}
	fail := func(format string, args ...any) (tmSpec, error) {
		return tmSpec{}, fmt.Errorf("tensor map %s: "+format, append([]any{name}, args...)...)
	}
	dt, ok := cuDataType(m.DType)
	if !ok {
		return fail("dtype %s has no CUtensorMapDataType", m.DType)
	}
	s.cuDType, s.elemBytes = dt, int64(m.DType.Bytes())
	s.isFloat = dt >= cuFloat16 && dt <= cuBFloat16
	switch m.ForceDType {
	case -1:
	case cuF32FTZ, cuTF32, cuTF32FTZ:
		if m.DType != ir.Float32 {
			return fail("CUtensorMapDataType %d needs a float32 descriptor, got %s", m.ForceDType, m.DType)
		}
		s.cuDType, s.isFloat = m.ForceDType, true
	default:
		return fail("forced CUtensorMapDataType %d is not 10, 11 or 12 (FLOAT32_FTZ, TFLOAT32, TFLOAT32_FTZ)", m.ForceDType)
	}
	if m.Rank < 1 || m.Rank > 5 {
		return fail(msgRank, m.Rank)
	}
	for _, a := range []struct {
		what string
		n    int
		want int
	}{{"GlobalDims", len(m.GlobalDims), m.Rank}, {"GlobalStrides", len(m.GlobalStrides), m.Rank - 1},
		{"Box", len(m.Box), m.Rank}, {"ElemStrides", len(m.ElemStrides), m.Rank}} {
		if a.n != a.want {
			return fail("%s has %d entries, want %d for rank %d", a.what, a.n, a.want, m.Rank)
		}
	}
	if err := s.check(); err != nil {
		return fail("%s", err)
	}
	return s, nil
}

// check applies the descriptor rules in the launcher's order (see
// encodeHelper); the error is the rule's message without the map name.
func (s *tmSpec) check() error {
	for i, d := range s.dims {
		if i < len(s.dimExprs) && s.dimExprs[i] != nil {
			continue // computed and checked by the launcher (tilels_encode_tiled)
		}
		if d < 1 || d > maxGlobalDim {
			return fmt.Errorf(msgGlobalDim, i, d)
		}
	}
	for i, st := range s.strides {
		switch {
		case st < 0 || st >= maxGlobalStride:
			return fmt.Errorf(msgStrideRange, i, st)
		case st%16 != 0:
			return fmt.Errorf(msgStride16, i, st)
		case s.interleave == 2 && st%32 != 0:
			return fmt.Errorf(msgStride32, i, st)
		}
	}
	for i, b := range s.box {
		if b < 1 || b > 256 {
			return fmt.Errorf(msgBox, i, b)
		}
	}
	for i, e := range s.elemStr {
		if e < 1 || e > 8 {
			return fmt.Errorf(msgElemStride, i, e)
		}
	}
	if s.elemStr[0] != 1 {
		return fmt.Errorf(msgElemStride0, s.elemStr[0])
	}
	switch {
	case s.interleave < 0 || s.interleave > 2:
		return fmt.Errorf(msgInterleave, s.interleave)
	case s.interleave != 0 && s.rank < 3:
		return fmt.Errorf(msgInterRank, s.interleave, s.rank)
	case s.swizzle < 0 || s.swizzle > 6:
		return fmt.Errorf(msgSwizzle, s.swizzle)
	case s.interleave == 2 && s.swizzle != 1:
		return fmt.Errorf(msgInterSwz, s.swizzle)
	case s.l2 < 0 || s.l2 > 3:
		return fmt.Errorf(msgL2, s.l2)
	case s.oob < 0 || s.oob > 1:
		return fmt.Errorf(msgOOB, s.oob)
	case s.oob == 1 && !s.isFloat:
		return fmt.Errorf(msgOOBFloat, s.dtype)
	}
	if s.interleave == 0 {
		inner := s.box[0] * s.elemBytes
		if inner%16 != 0 {
			return fmt.Errorf(msgInnerBox, s.elemBytes, inner)
		}
		if span := swizzleSpan(s.swizzle); span != 0 && inner > span {
			return fmt.Errorf(msgSwizzleBox, s.elemBytes, inner, span)
		}
	}
	return nil
}

// swizzleSpan is the byte span of a CUtensorMapSwizzle mode (0 for NONE):
// 32B, 64B, then 128B for 128B and its atom variants (CUDA 12.8+).
func swizzleSpan(swizzle int) int64 {
	switch swizzle {
	case 1:
		return 32
	case 2:
		return 64
	case 3, 4, 5, 6:
		return 128
	}
	return 0
}

// swizzleAlign is the shared-memory alignment a TMA box needs under a
// swizzle mode: 128 bytes unswizzled, else the span of the swizzle pattern
// (8 rows of the swizzle width), so that the hardware's address-based XOR
// agrees with the layout's offset-based one.
func swizzleAlign(swizzle int) int64 {
	if span := swizzleSpan(swizzle); span != 0 {
		return 8 * span
	}
	return 128
}

// cFormat turns a message format into a printf format for long long
// arguments.
func cFormat(format string) string {
	return strings.ReplaceAll(strings.ReplaceAll(format, "%d", "%lld"), "0x%x", "0x%llx")
}

// literal prints the spec as the initializer of a tilels_tensor_map.
func (s *tmSpec) literal() string {
	arr := func(v []int64) string {
		if len(v) == 0 {
			return "{0}"
		}
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = strconv.FormatInt(x, 10)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	isFloat := 0
	if s.isFloat {
		isFloat = 1
	}
	return fmt.Sprintf(`{"%s", "%s", %d, %d, %d, %d, %s, %s, %s, %s, %d, %d, %d, %d}`,
		s.name, s.dtype, s.cuDType, s.elemBytes, isFloat, s.rank,
		arr(s.dims), arr(s.strides), arr(s.box), arr(s.elemStr),
		s.interleave, s.swizzle, s.l2, s.oob)
}
