package tirx_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/tirx"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Whole kernels are covered by the golden files in codegen/testdata; these
// cases pin the expression syntax.

func TestExprString(t *testing.T) {
	a, b, c := &ir.Var{Name: "a", Type: ir.Int32}, &ir.Var{Name: "b", Type: ir.Int32}, &ir.Var{Name: "c", Type: ir.Int32}
	bin := func(op ir.BinOp, x, y ir.Expr) ir.Expr { return ir.Bin(op, x, y) }
	buf := &ir.Buffer{Name: "A", Shape: []int64{4, 8}, Dtype: ir.Float16}
	for _, tc := range []struct {
		e    ir.Expr
		want string
	}{
		{bin(ir.Mul, bin(ir.Add, a, b), c), "(a + b) * c"},
		{bin(ir.Add, a, bin(ir.Mul, b, c)), "a + b * c"},
		{bin(ir.Sub, a, bin(ir.Sub, b, c)), "a - (b - c)"},
		{bin(ir.Sub, bin(ir.Sub, a, b), c), "a - b - c"},
		{bin(ir.FloorDiv, a, bin(ir.FloorMod, b, c)), "a // (b % c)"},
		{bin(ir.EQ, bin(ir.LT, a, b), c), "(a < b) == c"},
		{bin(ir.And, bin(ir.EQ, a, ir.Const(0)), bin(ir.Or, b, c)), "a == 0 and (b or c)"},
		{&ir.Not{X: bin(ir.And, a, b)}, "not (a and b)"},
		{&ir.Neg{X: bin(ir.Add, a, b)}, "-(a + b)"},
		{bin(ir.Mul, a, ir.Const(-2)), "a * -2"},
		{bin(ir.BitXor, a, bin(ir.BitAnd, bin(ir.Shr, a, ir.Const(3)), ir.Const(56))), "a ^ ((a >> 3) & 56)"},
		{bin(ir.Shl, bin(ir.Add, a, b), ir.Const(1)), "(a + b) << 1"},
		{bin(ir.BitOr, bin(ir.BitOr, a, b), c), "a | b | c"},
		{bin(ir.BitOr, a, bin(ir.BitOr, b, c)), "a | (b | c)"},
		{bin(ir.Max, a, ir.Const(1)), "T.max(a, 1)"},
		{&ir.Cast{To: ir.Float16, X: a}, `T.Cast("float16", a)`},
		{&ir.Select{Cond: bin(ir.GT, a, b), A: a, B: b}, "T.Select(a > b, a, b)"},
		{&ir.FloatImm{Value: 2, Type: ir.Float32}, "T.float32(2.0)"},
		{&ir.FloatImm{Value: 1e-5, Type: ir.Float16}, "T.float16(1e-05)"},
		{&ir.IntImm{Value: 7, Type: ir.Int64}, "T.int64(7)"},
		{&ir.IntImm{Value: 1, Type: ir.BoolT}, "True"},
		{&ir.StringImm{Value: "shared::cta"}, `"shared::cta"`},
		{&ir.Load{Buf: buf, Indices: []ir.Expr{a, bin(ir.Add, b, ir.Const(1))}}, "A[a, b + 1]"},
		{&ir.AddressOf{Buf: buf, Indices: []ir.Expr{ir.Const(16)}, FlatIndex: true}, "T.address_of(A[16])"},
		{&ir.BufferData{Buf: buf}, "A.data"},
		{&ir.Region{Buf: buf, Min: []ir.Expr{ir.Const(0), a}, Extent: []ir.Expr{ir.Const(4), ir.Const(8)}}, "A[0:4, a:a + 8]"},
		{&ir.ThreadIndex{Axis: "laneid"}, `T.lane_id()`},
		{&ir.ThreadIndex{Axis: "tx"}, `threadIdx.x`},
		{&ir.ThreadIndex{Axis: "odd"}, `T.thread_index("odd")`},
		{&ir.Call{Op: ir.OpCopyBytes, Args: []ir.Expr{a, b, ir.Const(16)}}, "T.cuda.copy_bytes(a, b, 16)"},
	} {
		if got := tirx.ExprString(tc.e); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

func TestLayoutString(t *testing.T) {
	l, err := layout.Parse("S[(8,2):(4@laneid,1)] + R[2:4@warpid] + 5@warpid + 3")
	if err != nil {
		t.Fatal(err)
	}
	c, err := layout.NewCompose(3, 3, 3, true, layout.RowMajor(8, 64))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		l    layout.Layout
		want string
	}{
		{nil, "None"},
		{layout.RowMajor(32), "T.TileLayout(T.S[(32,):(1,)])"},
		{l, "T.TileLayout(T.S[(8, 2):(4@laneid, 1)] + T.R[(2,):(4@warpid,)] + 3 + 5@warpid)"},
		{c, "T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 64):(64, 1)]))"},
	} {
		if got := tirx.LayoutString(tc.l); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

// TestNames: distinct variables with one name are uniquified in first-use
// order; an unlowered tile call prints as written.
func TestNames(t *testing.T) {
	i1, i2 := &ir.Var{Name: "i", Type: ir.Int32}, &ir.Var{Name: "i", Type: ir.Int32}
	buf := &ir.Buffer{Name: "A", Shape: []int64{4}, Dtype: ir.Float32, Scope: "shared"}
	loop := func(v *ir.Var) ir.Stmt {
		return &ir.For{Var: v, Extent: ir.Const(4), Body: &ir.Block{Stmts: []ir.Stmt{
			&ir.Store{Buf: buf, Indices: []ir.Expr{v}, Value: &ir.FloatImm{Value: 0, Type: ir.Float32}},
		}}}
	}
	fn := &ir.Func{Name: "k", Body: &ir.Block{Stmts: []ir.Stmt{
		&ir.Alloc{Buf: buf},
		loop(i1), loop(i2),
		&ir.TileCall{Op: "sqrt", Scope: "cta", Args: []ir.Expr{
			&ir.Region{Buf: buf, Min: []ir.Expr{ir.Const(0)}, Extent: []ir.Expr{ir.Const(4)}}, nil},
			Config: []ir.KV{{Key: "scale", Value: &ir.FloatImm{Value: 0.5, Type: ir.Float32}}}, Dispatch: "smem"},
	}}}
	got := tirx.Print(fn, ir.Launch{})
	want := `@T.prim_func
def k():
    T.device_entry()
    A = T.alloc_buffer((4,), "float32", scope="shared", layout=None)
    for i in range(4):
        A[i] = T.float32(0.0)
    for i_1 in range(4):
        A[i_1] = T.float32(0.0)
    Tx.cta.sqrt(A[0:4], scale=T.float32(0.5), dispatch="smem")
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "launch") {
		t.Errorf("zero launch printed")
	}
}
