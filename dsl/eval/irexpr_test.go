package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// TestSimplifySub: region extents fold to constants as TVM's simplifier
// folds them, including exact floor divisions of linear forms.
func TestSimplifySub(t *testing.T) {
	i := &ir.Var{Name: "i", Type: ir.Int32}
	j := &ir.Var{Name: "j", Type: ir.Int32}
	c := func(v int64) ir.Expr { return &ir.IntImm{Value: v, Type: ir.Int32} }
	bin := func(op ir.BinOp, a, b ir.Expr) ir.Expr { return &ir.Binary{Op: op, A: a, B: b} }
	cases := []struct {
		name   string
		hi, lo ir.Expr
		want   int64 // -1: not constant
	}{
		{"i*8+8 - i*8", bin(ir.Add, bin(ir.Mul, i, c(8)), c(8)), bin(ir.Mul, i, c(8)), 8},
		// ((i + 1) * 128) // 4 - (i * 128) // 4 = 32 (flash_attention4's fragment slices)
		{"exact floordiv", bin(ir.FloorDiv, bin(ir.Mul, bin(ir.Add, i, c(1)), c(128)), c(4)), bin(ir.FloorDiv, bin(ir.Mul, i, c(128)), c(4)), 32},
		{"exact floordiv, two vars", bin(ir.FloorDiv, bin(ir.Add, bin(ir.Mul, i, c(64)), bin(ir.Add, bin(ir.Mul, j, c(8)), c(16))), c(8)), bin(ir.FloorDiv, bin(ir.Add, bin(ir.Mul, i, c(64)), bin(ir.Mul, j, c(8))), c(8)), 2},
		// (i + 1) // 2 - i // 2 is 0 or 1: not a constant
		{"inexact floordiv", bin(ir.FloorDiv, bin(ir.Add, i, c(1)), c(2)), bin(ir.FloorDiv, i, c(2)), -1},
		// (4i + 6) // 4 - 4i // 4 = (i + 1) - i
		{"floordiv of the constant", bin(ir.FloorDiv, bin(ir.Add, bin(ir.Mul, i, c(4)), c(6)), c(4)), bin(ir.FloorDiv, bin(ir.Mul, i, c(4)), c(4)), 1},
		// (4i - 6) // 4 - (4i - 8) // 4 = (i - 2) - (i - 2) = 0
		{"negative constant floors", bin(ir.FloorDiv, bin(ir.Sub, bin(ir.Mul, i, c(4)), c(6)), c(4)), bin(ir.FloorDiv, bin(ir.Sub, bin(ir.Mul, i, c(4)), c(8)), c(4)), 0},
	}
	for _, tc := range cases {
		got := eval.SimplifySub(tc.hi, tc.lo, source.Span{})
		n, ok := ir.ConstInt(got)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("%s: folded to %d, want a symbolic extent", tc.name, n)
		case tc.want >= 0 && (!ok || n != tc.want):
			t.Errorf("%s: got %s, want %d", tc.name, eval.ExprString(got), tc.want)
		}
	}
}
