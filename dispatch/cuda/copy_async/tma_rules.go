package copyasync

// The TensorMap rules of the 0.26+ TMA copies (tma_auto, tma_explicit):
// the complete descriptor plus instruction contract (tmaSpec, TVM
// TensorMapSpec, in CUDA Driver API order: dimension 0 innermost, the
// global strides without dimension 0) and the named rules that judge it,
// each with a PROVEN / DISPROVEN / UNKNOWN verdict (TVM
// validate_tensor_map_spec). tma_auto fails on DISPROVEN and on UNKNOWN
// (except the rules the driver checks at run time), and repairs the
// repairable ones by promoting the descriptor unit; tma_explicit fails on
// DISPROVEN only.
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy_async/tma.py at
// 0.26.0 and 0.27.0.post1 (identical there): ProofStatus,
// ValidationFinding, TensorMapSpec, validate_tensor_map_spec,
// _validation_failures, _raise_validation, _auto_fail, _dtype_contract.
// Messages are the reference's, verbatim.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/ir"
)

// tmaProof is TVM ProofStatus.
type tmaProof int

const (
	tmaProven tmaProof = iota
	tmaDisproven
	tmaUnknown
)

func (p tmaProof) String() string {
	return [...]string{"proven", "disproven", "unknown"}[p]
}

func tmaProofBool(b bool) tmaProof {
	if b {
		return tmaProven
	}
	return tmaDisproven
}

// tmaProofAll is TVM _proof_all: DISPROVEN wins, then UNKNOWN.
func tmaProofAll(ps ...tmaProof) tmaProof {
	out := tmaProven
	for _, p := range ps {
		if p == tmaDisproven {
			return tmaDisproven
		}
		if p == tmaUnknown {
			out = tmaUnknown
		}
	}
	return out
}

// tmaProofDivisible judges floormod(e, m) == 0: exact for a constant,
// PROVEN when the structure shows it (common.Divisible), else UNKNOWN
// (TVM's analyzer proves neither side of floormod(s*64, 128) == 0).
func tmaProofDivisible(e ir.Expr, m int64) tmaProof {
	e = tmaSimplify(e)
	if v, ok := ir.ConstInt(e); ok {
		return tmaProofBool(tmaFloorModInt(v, m) == 0)
	}
	if common.Divisible(e, m) {
		return tmaProven
	}
	return tmaUnknown
}

// tmaProofZero judges e == 0.
func tmaProofZero(e ir.Expr) tmaProof {
	if v, ok := ir.ConstInt(e); ok {
		return tmaProofBool(v == 0)
	}
	return tmaUnknown
}

func tmaFloorModInt(a, b int64) int64 {
	m := a % b
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return m
}

// tmaFinding is TVM ValidationFinding: one named rule's verdict.
type tmaFinding struct {
	rule       string
	status     tmaProof
	message    string
	repairable bool
}

// tmaRuntimeValidated are the rules the runtime's cuTensorMapEncodeTiled
// checks before the driver encodes (TVM _RUNTIME_VALIDATED_RULES): an
// UNKNOWN verdict does not fail tma_auto.
var tmaRuntimeValidated = map[string]bool{"global_dim": true}

// tmaDescriptorBits are the descriptor dtypes a TensorMap may have and
// their widths (validate_tensor_map_spec's dtype_bits, _dtype_contract's
// valid set).
var tmaDescriptorBits = map[string]int64{
	"int8": 8, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
	"float16": 16, "float32": 32, "float64": 64, "bfloat16": 16,
	"float8_e4m3fn": 8, "float8_e5m2": 8, "float4_e2m1fn": 4,
}

// tmaSpec is TVM TensorMapSpec. Dimension 0 is innermost.
type tmaSpec struct {
	dtype      ir.DataType // descriptor dtype (promoted: uint16/32/64)
	bits       int64
	effBytes   int64
	packed     string // "16u4_align16" for float4_e2m1fn, else ""
	forceDType int    // -1, or 11 (TFLOAT32)

	baseByteOffset int64 // view base offset of the global buffer, bytes

	globalDims    []int64
	globalStrides []int64 // bytes, rank-1 entries (dimension 0 omitted)
	innerStride   int64   // elements
	box           []int64
	elemStrides   []int64
	interleave    int
	swizzle       int
	l2Promotion   int
	oobFill       int
	direction     string // "g2s" or "s2g"
	loadMode      string // "tile" or "tile_gather4"
	arch          string
	coords        []ir.Expr
	gather4       []ir.Expr

	// smemBase is the element offset of the shared slice from the shared
	// buffer's pointer (its layout offset; tilels pointers carry the
	// buffer's own elem offset).
	smemBase ir.Expr

	mbar        ir.Expr
	mbarShared  bool
	ctaGroup    int64
	ctaMask     ir.Expr
	cacheHint   string
	cachePolicy ir.Expr
	reduce      string // "" = None

	payloadBits, transactionBits int64

	// runtimeExt is the runtime extent that globalDims entries
	// k * tmaRuntimeUnit stand for (tma_runtime_dim.go); nil: all static.
	runtimeExt ir.Expr
}

func (s *tmaSpec) rank() int { return len(s.globalDims) }

func (s *tmaSpec) clone() *tmaSpec {
	c := *s
	c.globalDims = append([]int64(nil), s.globalDims...)
	c.globalStrides = append([]int64(nil), s.globalStrides...)
	c.box = append([]int64(nil), s.box...)
	c.elemStrides = append([]int64(nil), s.elemStrides...)
	c.coords = append([]ir.Expr(nil), s.coords...)
	return &c
}

var tmaSMRe = regexp.MustCompile(`sm_(\d+)`)

// tmaTargetSM is TVM _target_sm: the number after sm_ in the arch, or 0.
func tmaTargetSM(arch string) int {
	m := tmaSMRe.FindStringSubmatch(arch)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// tmaFloatDescriptors are the dtypes NaN OOB fill accepts (_FLOAT_DTYPES).
var tmaFloatDescriptors = map[string]bool{"float16": true, "float32": true, "float64": true, "bfloat16": true}

// tmaValidateSpec is TVM validate_tensor_map_spec: every rule, in the
// reference's order.
func tmaValidateSpec(s *tmaSpec) []tmaFinding { return tmaCheckSpec(s, nil) }

// tmaCheckSpec is tmaValidateSpec keeping only the findings keep accepts
// (nil: all). The list of every rule's finding, grown at each of the
// validations of every TMA copy, was a tenth of the bytes a keystroke in
// flash_attention4.py allocated, where the repair loop wants the failures
// only; and a message is formatted only for a rule not proven (the
// proven ones' were read by nothing, and formatting them was a twentieth
// of the keystroke).
func tmaCheckSpec(s *tmaSpec, keep func(*tmaFinding) bool) []tmaFinding {
	var fs []tmaFinding
	add := func(rule string, st tmaProof, msg func() string, repairable bool) {
		f := tmaFinding{rule: rule, status: st, repairable: repairable}
		if keep != nil && !keep(&f) {
			return
		}
		if st != tmaProven {
			f.message = msg()
		}
		fs = append(fs, f)
	}
	rank := s.rank()
	name := s.dtype.String()
	add("rank", tmaProofBool(rank >= 1 && rank <= 5), func() string { return fmt.Sprintf("descriptor rank must be in [1, 5], got %d", rank) }, true)
	if want, ok := tmaDescriptorBits[name]; !ok {
		add("dtype", tmaDisproven, func() string { return "unsupported descriptor dtype " + name }, false)
	} else {
		add("dtype", tmaProven, func() string { return "descriptor dtype is supported" }, false)
		add("dtype_bits", tmaProofBool(s.bits == want), func() string { return fmt.Sprintf("descriptor dtype %s requires %d bits, got %d", name, want, s.bits) }, false)
		add("effective_bytes", tmaProofBool(s.effBytes == (s.bits+7)/8), func() string {
			return fmt.Sprintf("effective bytes %d do not match %d-bit descriptor units", s.effBytes, s.bits)
		}, false)
	}
	wantPacked := ""
	if name == "float4_e2m1fn" {
		wantPacked = "16u4_align16"
	}
	add("packed_kind", tmaProofBool(s.packed == wantPacked), func() string {
		return fmt.Sprintf("descriptor dtype %s requires packed_kind=%s, got %s", name, tmaPyOptStr(wantPacked), tmaPyOptStr(s.packed))
	}, false)
	forceOK := s.forceDType == -1 || s.forceDType == 11 && name == "float32" && s.bits == 32
	add("forced_cuda_dtype", tmaProofBool(forceOK), func() string { return "forced CUDA dtype must be -1, or TFLOAT32 (11) for a float32 descriptor" }, false)
	lengthsOK := len(s.globalStrides) == max(rank-1, 0) && len(s.box) == rank && len(s.elemStrides) == rank && len(s.coords) == rank
	add("array_lengths", tmaProofBool(lengthsOK), func() string {
		return "TensorMap arrays must contain rank global dimensions, boxes, element strides, and coordinates, plus rank-1 byte strides"
	}, false)

	align := int64(16)
	if s.interleave == 2 || s.packed != "" {
		align = 32
	}
	add("global_base_alignment", tmaProofBool(tmaFloorModInt(s.baseByteOffset, align) == 0), func() string {
		return fmt.Sprintf("view base byte offset %d must preserve %dB global alignment", s.baseByteOffset, align)
	}, false)
	for i, d := range s.globalDims {
		if x := tmaRuntimeDimExpr(d, s.runtimeExt); x != nil {
			// TVM: _proof_all(dim > 0, dim <= 2^32) over a symbol.
			add("global_dim", tmaUnknown, func() string { return fmt.Sprintf("globalDim[%d]=%s must be in (0, 2^32]", i, tmaExprText(x)) }, false)
			continue
		}
		add("global_dim", tmaProofBool(d > 0 && d <= 1<<32), func() string { return fmt.Sprintf("globalDim[%d]=%d must be in (0, 2^32]", i, d) }, false)
	}
	for i, st := range s.globalStrides {
		add("global_stride_range", tmaProofBool(st >= 0), func() string { return fmt.Sprintf("globalStrides[%d]=%d must be non-negative", i, st) }, false)
		add("global_stride_range", tmaProofBool(st < 1<<40), func() string { return fmt.Sprintf("globalStrides[%d]=%d must be less than 2^40", i, st) }, false)
		add("global_stride_alignment", tmaProofBool(tmaFloorModInt(st, align) == 0), func() string { return fmt.Sprintf("globalStrides[%d]=%d must be a multiple of %dB", i, st, align) }, true)
	}
	add("inner_stride", tmaProofBool(s.innerStride == 1), func() string { return fmt.Sprintf("innermost global element stride must be 1, got %d", s.innerStride) }, false)
	for i, b := range s.box {
		add("box_dim", tmaProofBool(b >= 1 && b <= 256), func() string { return fmt.Sprintf("boxDim[%d]=%d must be in [1, 256]", i, b) }, true)
	}
	for i, e := range s.elemStrides {
		add("element_stride", tmaProofBool(e >= 1 && e <= 8), func() string { return fmt.Sprintf("elementStride[%d]=%d must be in [1, 8]", i, e) }, false)
	}
	if len(s.elemStrides) > 0 {
		add("inner_stride", tmaProofBool(s.elemStrides[0] == 1), func() string { return fmt.Sprintf("innermost elementStride must be 1, got %d", s.elemStrides[0]) }, false)
	}
	add("interleave", tmaProofBool(s.interleave >= 0 && s.interleave <= 2), func() string { return fmt.Sprintf("interleave enum %d is invalid", s.interleave) }, false)
	add("swizzle", tmaProofBool(s.swizzle >= 0 && s.swizzle <= 3), func() string { return fmt.Sprintf("swizzle enum %d is invalid", s.swizzle) }, false)
	add("l2_promotion", tmaProofBool(s.l2Promotion >= 0 && s.l2Promotion <= 3), func() string { return fmt.Sprintf("L2 promotion enum %d is invalid", s.l2Promotion) }, false)
	add("oob", tmaProofBool(s.oobFill == 0 || s.oobFill == 1), func() string { return fmt.Sprintf("OOB enum %d is invalid", s.oobFill) }, false)
	if s.interleave != 0 {
		add("interleave_rank", tmaProofBool(rank >= 3), func() string { return "interleaved TensorMaps require rank >= 3" }, false)
	}
	if s.interleave == 2 {
		add("interleave_swizzle", tmaProofBool(s.swizzle == 1), func() string { return "32B interleave requires the 32B swizzle mode" }, false)
	}
	if len(s.box) > 0 && s.interleave == 0 && s.packed == "" {
		inner := s.box[0] * s.effBytes
		add("inner_box_bytes", tmaProofBool(inner%16 == 0), func() string {
			return fmt.Sprintf("innermost box is %dB; non-interleaved TensorMaps require a 16B multiple", inner)
		}, true)
		if atom, ok := tmaSwizzleAtomBytes[s.swizzle]; ok {
			add("swizzle_inner_box", tmaProofBool(inner <= atom), func() string { return fmt.Sprintf("innermost box %dB exceeds the %dB swizzle atom", inner, atom) }, false)
		}
	}
	if s.packed == "16u4_align16" && rank > 0 && len(s.box) > 0 {
		packedOK := tmaProofBool(s.globalDims[0]%128 == 0)
		if tmaRuntimeDimExpr(s.globalDims[0], s.runtimeExt) != nil {
			packedOK = tmaUnknown // TVM proves floormod(dim, 128) == 0 over a symbol
		}
		add("packed_shape", packedOK, func() string { return "packed 16U4 align16 requires globalDim[0] to be a multiple of 128" }, false)
		add("packed_box", tmaProofBool(s.box[0] == 128), func() string { return "packed 16U4 align16 requires boxDim[0] == 128" }, false)
		add("packed_swizzle", tmaProofBool(s.swizzle == 0 || s.swizzle == 3), func() string { return "packed 16U4 align16 supports only NONE or 128B swizzle in this layout model" }, false)
		add("packed_direction", tmaProofBool(s.direction == "g2s"), func() string { return "packed 16U4 align16 TensorMaps are load-only" }, false)
	}
	if s.oobFill == 1 {
		floating := tmaFloatDescriptors[name] || s.forceDType == 11
		add("nan_oob_dtype", tmaProofBool(floating && s.packed == ""), func() string { return "NaN OOB fill requires a non-packed floating-point descriptor" }, false)
	}
	if s.direction != "g2s" && s.direction != "s2g" {
		add("direction", tmaDisproven, func() string { return fmt.Sprintf("invalid TMA direction %s", common.PyRepr(s.direction)) }, false)
	}
	sm := tmaTargetSM(s.arch)
	if s.loadMode == "tile_gather4" {
		add("gather4_rank", tmaProofBool(rank == 2), func() string { return fmt.Sprintf("gather4 requires a rank-2 TensorMap, got rank %d", rank) }, false)
		add("gather4_rows", tmaProofBool(len(s.gather4) == 4), func() string {
			return fmt.Sprintf("gather4 requires exactly four row coordinates, got %d", len(s.gather4))
		}, false)
		st := tmaDisproven
		if rank == 2 && len(s.box) == 2 {
			st = tmaProofBool(s.box[1] == 1)
		}
		add("gather4_box", st, func() string { return "gather4 public axis 0 must map to a hardware row box of one" }, false)
		add("gather4_interleave", tmaProofBool(s.interleave == 0), func() string { return "gather4 does not support interleaved TensorMaps" }, false)
		add("target", tmaProofBool(sm >= 100), func() string { return fmt.Sprintf("gather4 requires SM100+, got %s", common.PyRepr(s.arch)) }, false)
	} else {
		add("coordinate_count", tmaProofBool(len(s.coords) == rank), func() string { return fmt.Sprintf("coordinate count %d must equal rank %d", len(s.coords), rank) }, false)
		add("target", tmaProofBool(sm >= 90), func() string { return fmt.Sprintf("TMA requires SM90+, got %s", common.PyRepr(s.arch)) }, false)
	}
	add("cta_group", tmaProofBool(s.ctaGroup == 1 || s.ctaGroup == 2), func() string { return fmt.Sprintf("cta_group must be 1 or 2, got %d", s.ctaGroup) }, false)
	if s.ctaGroup == 2 {
		add("target", tmaProofBool(sm >= 100), func() string { return fmt.Sprintf("cta_group=2 requires SM100+, got %s", common.PyRepr(s.arch)) }, false)
		add("mbarrier_address", tmaProofBool(s.mbarShared), func() string { return "cta_group=2 requires a precomputed shared mbarrier address" }, false)
	}
	if s.direction == "g2s" {
		add("mbar", tmaProofBool(s.mbar != nil), func() string { return "global-to-shared TMA requires mbar" }, false)
		add("reduce_direction", tmaProofBool(s.reduce == ""), func() string { return "TMA reduction is only valid for shared-to-global" }, false)
	} else {
		add("gather_direction", tmaProofBool(s.loadMode == "tile"), func() string { return "gather4 is only valid for global-to-shared" }, false)
		add("cta_mask_direction", tmaProofBool(TmaIsZero(s.ctaMask)), func() string { return "cta_mask is only valid for global-to-shared" }, false)
	}
	return fs
}

var tmaSwizzleAtomBytes = map[int]int64{1: 32, 2: 64, 3: 128}

// tmaPyOptStr is Python repr() of an optional string: None or 'x'.
func tmaPyOptStr(s string) string {
	if s == "" {
		return "None"
	}
	return common.PyRepr(s)
}

// tmaValidationFailures is TVM _validation_failures: DISPROVEN rules, and
// for tma_auto also UNKNOWN ones the runtime does not check.
func tmaValidationFailures(s *tmaSpec, auto bool) []tmaFinding {
	return tmaCheckSpec(s, func(f *tmaFinding) bool {
		return f.status == tmaDisproven || auto && f.status == tmaUnknown && !tmaRuntimeValidated[f.rule]
	})
}

// tmaStageError is a stage-named planner failure: TVM fail() with the
// tma_auto or tma_explicit text (the variant declines).
type tmaStageError struct{ msg string }

// tmaAutoFail is TVM _auto_fail.
func tmaAutoFail(stage, detail string) *tmaStageError {
	return &tmaStageError{fmt.Sprintf(`tma_auto stage=%s: %s; use dispatch="tma_explicit" when the mapping or hardware legality is only known at runtime`, stage, detail)}
}

// tmaRequire is TVM _require_proven: nil when st is PROVEN.
func tmaRequire(st tmaProof, stage, detail string) *tmaStageError {
	if st == tmaProven {
		return nil
	}
	return tmaAutoFail(stage, fmt.Sprintf("%s (%s)", detail, st))
}

// tmaPlainFail is TVM fail() with a message of its own.
func tmaPlainFail(format string, args ...any) *tmaStageError {
	return &tmaStageError{fmt.Sprintf(format, args...)}
}

// tmaRaiseValidation is TVM _raise_validation.
func tmaRaiseValidation(stage string, failures []tmaFinding, auto bool) *tmaStageError {
	parts := make([]string, len(failures))
	for i, f := range failures {
		parts[i] = fmt.Sprintf("%s: %s [%s]", f.rule, f.message, f.status)
	}
	details := strings.Join(parts, "; ")
	if auto {
		return tmaAutoFail(stage, details)
	}
	return tmaPlainFail("tma_explicit stage=%s: %s", stage, details)
}

// tmaDescriptor is TVM _dtype_contract's result.
type tmaDescriptor struct {
	dtype      ir.DataType
	bits       int64
	effBytes   int64
	packed     string
	forceDType int
}

// tmaDTypeContract is TVM _dtype_contract: the descriptor of a global
// buffer's dtype, with tma_dtype ("tf32"/"tfloat32") forcing TFLOAT32.
func tmaDTypeContract(dt ir.DataType, tmaDType ir.Expr) (tmaDescriptor, *tmaStageError) {
	name := dt.String()
	if _, ok := tmaDescriptorBits[name]; !ok {
		return tmaDescriptor{}, tmaPlainFail("unsupported TensorMap descriptor dtype %s", name)
	}
	force := -1
	if tmaDType != nil {
		s, isStr := tmaDType.(*ir.StringImm)
		if !isStr || s.Value != "tf32" && s.Value != "tfloat32" {
			return tmaDescriptor{}, tmaPlainFail("tma_dtype must be 'tf32' or 'tfloat32'")
		}
		if name != "float32" {
			return tmaDescriptor{}, tmaPlainFail("tma_dtype=%s requires a float32 global buffer, got %s", common.PyRepr(s.Value), name)
		}
		force = 11
	}
	bits := int64(dt.Bits)
	d := tmaDescriptor{dtype: dt, bits: bits, effBytes: (bits + 7) / 8, forceDType: force}
	if name == "float4_e2m1fn" {
		d.packed = "16u4_align16"
	}
	return d, nil
}

// tmaElementsToBytes is TVM _elements_to_bytes for a constant count.
func tmaElementsToBytes(elements, bits int64, auto bool, stage, label string) (int64, *tmaStageError) {
	total := elements * bits
	if tmaFloorModInt(total, 8) != 0 {
		msg := fmt.Sprintf("%s=%d elements at %d bits is not provably byte aligned", label, elements, bits)
		if auto {
			return 0, tmaAutoFail(stage, msg)
		}
		return 0, tmaPlainFail("tma_explicit stage=%s: %s", stage, msg)
	}
	return tmaFloorDivInt(total, 8), nil
}

// tmaSimplify folds the quotient and remainder terms a layout applied to a
// scaled symbolic start produces, as TVM's analyzer does before it judges
// a rule: floordiv(x*k, c) → x*(k/c) and floormod(x*k, c) → 0 for c | k,
// and a floordiv or floormod of a provable multiple (common.Divisible).
func tmaSimplify(e ir.Expr) ir.Expr {
	b, ok := e.(*ir.Binary)
	if !ok {
		return e
	}
	x, y := tmaSimplify(b.A), tmaSimplify(b.B)
	c, isConst := ir.ConstInt(y)
	switch {
	case b.Op == ir.FloorDiv && isConst && c > 0 && common.Divisible(x, c):
		return ir.SimplifyIndex(tmaDivExact(x, c))
	case b.Op == ir.FloorMod && isConst && c > 0 && common.Divisible(x, c):
		return common.Cst(0)
	case b.Op == ir.Add:
		return ir.SimplifyIndex(ir.AddE(x, y))
	case b.Op == ir.Mul:
		return ir.MulE(x, y)
	}
	if x == b.A && y == b.B {
		return e
	}
	return &ir.Binary{Op: b.Op, A: x, B: y, Span: b.Span}
}
