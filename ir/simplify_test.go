package ir

import "testing"

func TestSimplifyIndex(t *testing.T) {
	x := &Var{Name: "x", Type: Int32}
	y := &Var{Name: "y", Type: Int32}
	tid := &ThreadIndex{Axis: "tx"}
	fused := AddE(MulE(tid, Const(4)), x) // tid*4 + x
	for _, tc := range []struct {
		name string
		in   Expr
		want Expr
	}{
		{"2d row-major", AddE(MulE(DivE(fused, Const(32)), Const(32)), ModE(fused, Const(32))), fused},
		{"commuted", AddE(ModE(fused, Const(32)), MulE(Const(32), DivE(fused, Const(32)))), fused},
		{"3d", AddE(AddE(MulE(DivE(y, Const(48)), Const(48)), MulE(ModE(DivE(y, Const(8)), Const(6)), Const(8))), ModE(y, Const(8))), y},
		{"3d inner pair", AddE(MulE(ModE(DivE(y, Const(8)), Const(6)), Const(8)), ModE(y, Const(8))), ModE(y, Const(48))},
		{"different operands stay", AddE(MulE(DivE(x, Const(32)), Const(32)), ModE(y, Const(32))), nil},
		{"different constants stay", AddE(MulE(DivE(x, Const(16)), Const(32)), ModE(x, Const(32))), nil},
	} {
		got := SimplifyIndex(tc.in)
		want := tc.want
		if want == nil {
			want = tc.in
		}
		if !Equal(got, want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, got, want)
		}
	}
}
