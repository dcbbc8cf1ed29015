package lower

import (
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestAutoArchBlackwellCalls: what makes AutoArch choose sm_100a without
// an arch option (a tile call or an intrinsic only sm_100 lowers), and
// what does not.
func TestAutoArchBlackwellCalls(t *testing.T) {
	kernel := func(s ir.Stmt) *ir.Func { return &ir.Func{Name: "k", Body: &ir.Block{Stmts: []ir.Stmt{s}}} }
	for _, tc := range []struct {
		name string
		s    ir.Stmt
		want string
	}{
		{"plain copy", &ir.TileCall{Op: "copy"}, "sm_90a"},
		{"gemm_async", &ir.TileCall{Op: "gemm_async"}, "sm_100a"},
		{"vec_256b forced", &ir.TileCall{Op: "copy", Dispatch: "vec_256b"}, "sm_100a"},
		{"vec_128b forced", &ir.TileCall{Op: "copy", Dispatch: "vec_128b"}, "sm_90a"},
		{"TMA gather4", &ir.TileCall{Op: "copy_async", Dispatch: "tma_explicit", Config: []ir.KV{{Key: "gather4"}}}, "sm_100a"},
		{"TMA with a cache hint", &ir.TileCall{Op: "copy_async", Config: []ir.KV{{Key: "cache_hint"}}}, "sm_90a"},
		{"f32x2 add", &ir.Evaluate{X: &ir.Call{Op: "ptx.add.rn.f32x2"}}, "sm_100a"},
		{"256-bit load", &ir.Evaluate{X: &ir.Call{Op: "ptx.ld.global.v8.u32"}}, "sm_100a"},
		{"128-bit load", &ir.Evaluate{X: &ir.Call{Op: "ptx.ld.global.v4.u32"}}, "sm_90a"},
		{"tcgen05 bookkeeping", &ir.Evaluate{X: &ir.Call{Op: "ptx.tcgen05.fence__after_thread_sync"}}, "sm_100a"},
	} {
		if got := AutoArch(kernel(tc.s)); got != tc.want {
			t.Errorf("%s: AutoArch = %s, want %s", tc.name, got, tc.want)
		}
	}
}
