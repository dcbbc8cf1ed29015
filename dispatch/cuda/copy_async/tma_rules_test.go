package copyasync

import (
	"fmt"
	"strings"
	"testing"

	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/ir"
)

// tmaTestSpec is a rank-2 g2s spec of dtype dt: dims, byte strides and box
// in CUDA order, coordinates zero, on sm_90a.
func tmaTestSpec(dt ir.DataType, swizzle int, dims, strides, box []int64) *tmaSpec {
	d, _ := tmaDTypeContract(dt, nil)
	s := &tmaSpec{dtype: d.dtype, bits: d.bits, effBytes: d.effBytes, packed: d.packed, forceDType: d.forceDType,
		globalDims: dims, globalStrides: strides, innerStride: 1, box: box, swizzle: swizzle, l2Promotion: 2,
		direction: "g2s", loadMode: "tile", arch: "sm_90a", mbar: common.Cst(0), ctaGroup: 1, ctaMask: common.Cst(0)}
	for range dims {
		s.elemStrides = append(s.elemStrides, 1)
		s.coords = append(s.coords, common.Cst(0))
	}
	tx := d.bits
	for _, b := range box {
		tx *= b
	}
	s.transactionBits, s.payloadBits = tx, tx
	return s
}

func tmaFailureText(fs []tmaFinding) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s: %s [%s]", f.rule, f.message, f.status))
	}
	return strings.Join(parts, "; ")
}

// The named rules and their verdicts; the texts are the 0.27.0.post1
// wheel's (validate_tensor_map_spec), the first and fourth as the wheel
// reported them for lower/testdata/tma_explicit.txtar and
// tma_auto_rejects.txtar.
func TestTMARules(t *testing.T) {
	f16 := ir.DataType{Code: ir.Float, Bits: 16}
	for _, tc := range []struct {
		name string
		spec *tmaSpec
		edit func(*tmaSpec)
		want string
	}{
		{"legal 128B-swizzled box", tmaTestSpec(f16, 3, []int64{64, 256}, []int64{128}, []int64{64, 64}), nil, ""},
		{"box over 256", tmaTestSpec(f16, 0, []int64{64, 512}, []int64{128}, []int64{8, 512}), nil,
			"box_dim: boxDim[1]=512 must be in [1, 256] [disproven]"},
		{"inner box past the swizzle atom", tmaTestSpec(f16, 3, []int64{128, 64}, []int64{256}, []int64{128, 64}), nil,
			"swizzle_inner_box: innermost box 256B exceeds the 128B swizzle atom [disproven]"},
		{"cta_group=2 on sm_90a", tmaTestSpec(f16, 3, []int64{64, 256}, []int64{128}, []int64{64, 64}),
			func(s *tmaSpec) { s.ctaGroup, s.mbarShared = 2, true },
			"target: cta_group=2 requires SM100+, got 'sm_90a' [disproven]"},
		{"unaligned stride and 8-byte inner box", tmaTestSpec(f16, 0, []int64{4, 100}, []int64{8}, []int64{4, 100}), nil,
			"global_stride_alignment: globalStrides[0]=8 must be a multiple of 16B [disproven]; " +
				"inner_box_bytes: innermost box is 8B; non-interleaved TensorMaps require a 16B multiple [disproven]"},
		{"gather4 row box", tmaTestSpec(f16, 0, []int64{64, 1024}, []int64{128}, []int64{64, 2}),
			func(s *tmaSpec) {
				s.loadMode, s.arch = "tile_gather4", "sm_100a"
				s.gather4 = []ir.Expr{common.Cst(0), common.Cst(1), common.Cst(2), common.Cst(3)}
			},
			"gather4_box: gather4 public axis 0 must map to a hardware row box of one [disproven]"},
		{"NaN fill on int8", tmaTestSpec(ir.DataType{Code: ir.Int, Bits: 8}, 0, []int64{64, 64}, []int64{64}, []int64{64, 64}),
			func(s *tmaSpec) { s.oobFill = 1 },
			"nan_oob_dtype: NaN OOB fill requires a non-packed floating-point descriptor [disproven]"},
	} {
		if tc.edit != nil {
			tc.edit(tc.spec)
		}
		if got := tmaFailureText(tmaValidationFailures(tc.spec, false)); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// The auto repair: float8 rows of 512 bytes exceed the 256-element box;
// one promotion to uint16 units makes the descriptor legal, as the 0.27
// wheel plans lower/testdata/tma_auto_plans.txtar's fp8_promote
// (uint16, dims (256, 64), box (256, 16)).
func TestTMARepairPromotes(t *testing.T) {
	f8 := ir.DataType{Code: ir.Float8E4M3, Bits: 8}
	s := tmaTestSpec(f8, 0, []int64{512, 64}, []int64{512}, []int64{512, 16})
	s.coords = []ir.Expr{common.Cst(0), common.Cst(16)}
	p, fails := tmaRepairAutoCandidate(&tmaSpecPlan{spec: s})
	if p == nil {
		t.Fatalf("no repair: %s", tmaFailureText(fails))
	}
	got := fmt.Sprintf("%s %v %v %v", p.spec.dtype, p.spec.globalDims, p.spec.globalStrides, p.spec.box)
	if want := "uint16 [256 64] [512] [256 16]"; got != want {
		t.Errorf("repaired spec %s, want %s", got, want)
	}
	// An int8 NaN fill forbids promotion: the box rule stays.
	s = tmaTestSpec(f8, 0, []int64{512, 64}, []int64{512}, []int64{512, 16})
	s.oobFill = 1
	if p, fails := tmaRepairAutoCandidate(&tmaSpecPlan{spec: s}); p != nil || !strings.Contains(tmaFailureText(fails), "box_dim: boxDim[0]=512") {
		t.Errorf("oob=nan promoted or failed otherwise: %v %s", p, tmaFailureText(fails))
	}
}

// Canonicalization merges a contiguous pair copied in full from zero and
// drops unit dimensions, keeping issue-driven dimensions.
func TestTMACanonicalize(t *testing.T) {
	f16 := ir.DataType{Code: ir.Float, Bits: 16}
	// (64 cols, 2 halves, 8 rows, contiguous) boxed in full: the inner pair
	// merges into 128; merging the rows too would make a 1024-element box,
	// past 256, so they stay.
	s := tmaTestSpec(f16, 0, []int64{64, 2, 8}, []int64{128, 256}, []int64{64, 2, 8})
	p := tmaCanonicalizeAutoPlan(&tmaSpecPlan{spec: s})
	if got := fmt.Sprint(p.spec.globalDims, p.spec.box, p.spec.globalStrides); got != "[128 8] [128 8] [256]" {
		t.Errorf("canonical %s", got)
	}
	// With dimension 2 driven by an issue axis it stays.
	s = tmaTestSpec(f16, 0, []int64{64, 2, 8}, []int64{128, 256}, []int64{64, 2, 1})
	p = tmaCanonicalizeAutoPlan(&tmaSpecPlan{spec: s, axes: []tmaIssueAxis{{extent: 8, smemStride: 128, coords: []tmaIssueCoord{{dim: 2, divisor: 1, modulus: 8}}}}})
	if got := fmt.Sprint(p.spec.globalDims, p.spec.box, p.axes[0].coords[0].dim); got != "[128 8] [128 1] 1" {
		t.Errorf("canonical with issue axis %s", got)
	}
}
