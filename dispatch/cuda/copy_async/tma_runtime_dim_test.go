package copyasync

import (
	"strings"
	"testing"

	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/ir"
)

// A descriptor dimension that stands for the runtime extent gets the
// global_dim rule UNKNOWN (the 0.27 wheel: _proof_all over a symbol), which
// neither tma_auto nor tma_explicit rejects (_RUNTIME_VALIDATED_RULES);
// the same spec with a static out-of-range dimension is rejected.
func TestTMARuntimeDimRules(t *testing.T) {
	n := &ir.Var{Name: "n", Type: ir.Int32}
	s := tmaTestSpec(ir.Float16, 3, []int64{64, tmaRuntimeUnit}, []int64{128}, []int64{64, 64})
	s.runtimeExt = n
	for _, auto := range []bool{true, false} {
		if f := tmaValidationFailures(s, auto); len(f) != 0 {
			t.Errorf("auto=%v: runtime dimension rejected: %s", auto, tmaFailureText(f))
		}
	}
	var unknown []string
	for _, f := range tmaValidateSpec(s) {
		if f.status == tmaUnknown {
			unknown = append(unknown, f.rule+": "+f.message)
		}
	}
	if want := "global_dim: globalDim[1]=n must be in (0, 2^32]"; len(unknown) != 1 || unknown[0] != want {
		t.Errorf("unknown findings = %q, want [%q]", unknown, want)
	}
	big := tmaTestSpec(ir.Float16, 3, []int64{64, 1<<32 + 1}, []int64{128}, []int64{64, 64})
	if f := tmaValidationFailures(big, true); len(f) == 0 {
		t.Errorf("a static globalDim past 2^32 was accepted")
	}

	// Descriptor dims: the map carries the expression (0 in GlobalDims);
	// a dimension merged with a static one is E * k.
	s.globalDims = []int64{64, 3 * tmaRuntimeUnit}
	dims, exprs := tmaStaticDims(s), tmaGlobalDimExprs(s)
	if dims[0] != 64 || dims[1] != 0 || exprs[0] != nil || exprs[1] == nil {
		t.Fatalf("dims %v exprs %v", dims, exprs)
	}
	if got := tmaDimsTuple(s); got != "(64, n * 3)" {
		t.Errorf("dims text = %q", got)
	}

	// A byte stride over the runtime extent ((1, n) kept as a descriptor
	// dimension) is declined.
	s.globalStrides = []int64{2 * tmaRuntimeUnit}
	if why := tmaGlobalStrideRuntime(s); !strings.Contains(why, "not modelled") {
		t.Errorf("runtime stride accepted: %q", why)
	}
}

// tmaRuntimeRegion accepts a runtime outermost dimension, or one after
// unit extents, and declines a runtime dimension with a non-unit
// dimension outside it (its strides would be runtime values).
func TestTMARuntimeRegion(t *testing.T) {
	n := &ir.Var{Name: "n", Type: ir.Int32}
	for _, tc := range []struct {
		shape []int64
		d     int
		ok    bool
	}{
		{[]int64{0, 128}, 0, true},
		{[]int64{1, 0}, 1, true},
		{[]int64{1, 1, 0, 16}, 2, true},
		{[]int64{4, 0}, 1, false},
	} {
		b := &ir.Buffer{Name: "g", Shape: tc.shape, ShapeExpr: make([]ir.Expr, len(tc.shape)), Dtype: ir.Float16, Scope: "global"}
		b.ShapeExpr[tc.d] = n
		g, ext, why := tmaRuntimeRegion(common.Region{Buf: b, Shape: tc.shape})
		if (why == "") != tc.ok {
			t.Errorf("shape %v: why=%q, want ok=%v", tc.shape, why, tc.ok)
			continue
		}
		if tc.ok && (ext != n || g.Shape[tc.d] != tmaRuntimeUnit || g.Lay == nil) {
			t.Errorf("shape %v: ext %v shape %v", tc.shape, ext, g.Shape)
		}
	}
}
