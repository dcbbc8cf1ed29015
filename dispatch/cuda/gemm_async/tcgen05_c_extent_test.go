package gemmasync

import (
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// TestCMatrixExts: the C extents per release. 0.25 asserts 2-D; 0.26+
// squeezes leading unit dimensions and keeps its batched .ws form
// C[2, M, N/2] (three extents), never the assertion.
func TestCMatrixExts(t *testing.T) {
	call := func(rel release.Release) *dispatch.Call {
		return dispatch.NewCall(&ir.TileCall{Op: "gemm_async", Scope: "thread"}, dispatch.Target{Kind: "cuda", Arch: "sm_100a", Release: rel}, 1)
	}
	run := func(rel release.Release, exts []int64) (got []int64, panicked any) {
		defer func() { panicked = recover() }()
		got, _ = cMatrixExts(call(rel), exts, 2, 2)
		return got, nil
	}
	if got, p := run(release.R027, []int64{1, 128, 64}); p != nil || len(got) != 2 || got[0] != 128 || got[1] != 64 {
		t.Errorf("0.27 staged C [1,128,64]: %v, %v", got, p)
	}
	if _, p := run(release.R025, []int64{1, 128, 64}); p == nil {
		t.Errorf("0.25 staged C [1,128,64]: no assertion")
	} else if r, ok := p.(*dispatch.Raised); !ok || r.Msg != "Only 2D C, A, B are supported for gemm" {
		t.Errorf("0.25 staged C: %v", p)
	}
	if got, p := run(release.R027, []int64{2, 64, 64}); p != nil || len(got) != 3 {
		t.Errorf("0.27 batched .ws C [2,64,64]: %v, %v; want the three extents", got, p)
	}
	if _, p := run(release.R027, []int64{4, 128, 64}); p == nil {
		t.Errorf("0.27 C [4,128,64]: no assertion")
	} else if r, ok := p.(*dispatch.Raised); !ok || r.Type != "AssertionError" {
		t.Errorf("0.27 C [4,128,64]: %v", p)
	}
}
