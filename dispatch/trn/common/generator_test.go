package common

import (
	"fmt"
	"testing"

	"github.com/tilels/tilels/dispatch"
)

// TestCommonFactor: InstructionGenerator.common_factor, against values the
// 0.27 wheel computes (and its assertion texts).
func TestCommonFactor(t *testing.T) {
	for _, c := range []struct {
		a, b []int64
		want string
	}{
		{[]int64{128, 512}, []int64{128, 4, 128}, "[128 4 128]"},
		{[]int64{4, 128}, []int64{512}, "[4 128]"},
		{[]int64{8}, []int64{2, 4}, "[2 4]"},
		{[]int64{1}, []int64{1}, "[1]"},
		{nil, nil, "[]"},
		{[]int64{6, 4}, []int64{4, 6}, "AssertionError: Incompatible factor ordering"},
		{[]int64{2, 3}, []int64{3, 2}, "AssertionError: Incompatible factor ordering"},
		{[]int64{4}, []int64{8}, "AssertionError: Shapes hold different numbers of elements"},
	} {
		got := func() (s string) {
			defer func() {
				if r := recover(); r != nil {
					s = r.(*dispatch.Raised).Error()
				}
			}()
			return fmt.Sprint(commonFactor(c.a, c.b))
		}()
		if got != c.want {
			t.Errorf("common_factor(%v, %v) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

// TestMaxLinear: _find_max_linear_inst takes the run of iters, by stride,
// each continuing the last, from the first at or above min_stride.
func TestMaxLinear(t *testing.T) {
	its := []idxIter{{0, Iter{Extent: 4, Stride: 512}}, {1, Iter{Extent: 128, Stride: 1}}, {2, Iter{Extent: 4, Stride: 128}}}
	size, stride, ids := maxLinear(its, 1)
	if size != 2048 || stride != 1 || fmt.Sprint(ids) != "[1 2 0]" {
		t.Errorf("maxLinear = %d, %d, %v; want 2048, 1, [1 2 0]", size, stride, ids)
	}
	its = []idxIter{{0, Iter{Extent: 4, Stride: 1024}}, {1, Iter{Extent: 128, Stride: 1}}}
	if size, _, ids := maxLinear(its, 1); size != 128 || fmt.Sprint(ids) != "[1]" {
		t.Errorf("maxLinear with a gap = %d, %v; want 128, [1]", size, ids)
	}
}
