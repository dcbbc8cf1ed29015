package common

import (
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
)

// TestDivisible: the proofs of TVM's analyzer that the tile primitives
// rely on (floormod(e, v) == 0), through sums, products, floor divisions
// and floor remainders by constants, and the ones it cannot make.
func TestDivisible(t *testing.T) {
	i := &ir.Var{Name: "i", Type: ir.Int32}
	c := func(v int64) ir.Expr { return Cst(v) }
	for _, tc := range []struct {
		e    ir.Expr
		v    int64
		want bool
	}{
		{c(12), 4, true},
		{c(12), 8, false},
		{ir.MulE(i, c(128)), 64, true},
		{ir.MulE(i, c(6)), 4, false},
		{ir.AddE(ir.MulE(i, c(256)), c(128)), 2, true},
		// (i*128)//4 = i*32 (flash_attention4.py's P_region columns)
		{ir.DivE(ir.MulE(i, c(128)), c(4)), 2, true},
		{ir.DivE(ir.MulE(i, c(128)), c(4)), 32, true},
		{ir.DivE(ir.MulE(i, c(128)), c(4)), 64, false},
		{ir.AddE(ir.DivE(ir.MulE(ir.AddE(i, c(3)), c(128)), c(4)), c(192)), 2, true},
		// (6i)//4 is 0, 1, 3, 4, ... for i = 0, 1, 2, 3: not even
		{ir.DivE(ir.MulE(i, c(6)), c(4)), 2, false},
		// i*4 % 8 is 0 or 4; i*4 % 6 is 0, 4, 2
		{ir.ModE(ir.MulE(i, c(4)), c(8)), 4, true},
		{ir.ModE(ir.MulE(i, c(4)), c(6)), 4, false},
		{ir.ModE(ir.MulE(i, c(4)), c(6)), 2, true},
		{i, 2, false},
	} {
		if got := Divisible(tc.e, tc.v); got != tc.want {
			t.Errorf("Divisible(%s, %d) = %v, want %v", dispatch.ExprText(tc.e), tc.v, got, tc.want)
		}
	}
}
