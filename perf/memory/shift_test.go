package memory

import (
	"math/rand/v2"
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestBitShifts checks warps.go's shift rules for the bit operations of
// swizzles by evaluation: for every form, random values x (of the moving
// variable v) and y (of w, which does not move) and every move a of v
// tried, when the proof gives e a shift s, e(x + a) must be e(x) + s.
// It also checks that the rules give the swizzle of 8-element chunks of
// 128-byte rows (common.SwizzleExpr's form) a shift for moves of 512
// elements, and none for moves of 256.
func TestBitShifts(t *testing.T) {
	v := &ir.Var{Name: "v", Type: ir.DataType{Code: ir.Int, Bits: 32}}
	w := &ir.Var{Name: "w", Type: ir.DataType{Code: ir.Int, Bits: 32}}
	c := func(x int64) ir.Expr { return &ir.IntImm{Value: x} }
	bin := func(op ir.BinOp, a, b ir.Expr) ir.Expr { return &ir.Binary{Op: op, A: a, B: b} }
	swz := func(m ir.Expr) ir.Expr { // 3-bit swizzle of 8-element chunks
		q := bin(ir.Shr, m, c(3))
		x := bin(ir.Shr, bin(ir.BitAnd, q, c(56)), c(3))
		return bin(ir.BitOr, bin(ir.Shl, bin(ir.BitXor, q, x), c(3)), bin(ir.BitAnd, m, c(7)))
	}
	forms := []ir.Expr{
		bin(ir.Shr, v, c(3)),
		bin(ir.BitAnd, v, c(56)),
		bin(ir.BitAnd, c(7), v),
		bin(ir.BitXor, v, bin(ir.BitAnd, w, c(15))),
		bin(ir.BitXor, bin(ir.Shr, bin(ir.BitAnd, w, c(56)), c(3)), v),
		bin(ir.BitXor, v, bin(ir.FloorMod, w, c(16))),
		bin(ir.BitXor, v, bin(ir.Shl, bin(ir.BitAnd, w, c(7)), c(4))),
		bin(ir.BitOr, bin(ir.Shl, v, c(4)), bin(ir.BitAnd, w, c(15))),
		bin(ir.BitOr, bin(ir.Mul, v, c(32)), bin(ir.FloorMod, w, c(32))),
		bin(ir.BitOr, bin(ir.BitAnd, w, c(7)), bin(ir.Shl, v, c(3))),
		bin(ir.BitXor, v, w), // w unbounded: no shift unless a is 0
		bin(ir.BitOr, v, bin(ir.BitAnd, w, c(15))),
		bin(ir.BitOr, v, w), // w unbounded
		bin(ir.BitAnd, v, w),
		swz(v),
		swz(bin(ir.Add, bin(ir.Mul, v, c(64)), bin(ir.Mul, w, c(8)))),
	}
	eval := func(e ir.Expr, x, y int64) int64 { return evalForm(t, e, v, x, y) }
	r := rand.New(rand.NewPCG(7, 8))
	proven := 0
	for _, e := range forms {
		for _, a := range []int64{0, 1, 8, 16, 64, 256, 512, 1024, 4096, -512, 3 * 512} {
			p := &shiftProof{vars: ptrMapOf(map[*ir.Var]int64{v: a, w: 0})}
			s := p.expr(e, false)
			if s == noShift {
				continue
			}
			proven++
			for range 2000 {
				x, y := r.Int64N(1<<20)-1<<19, r.Int64N(1<<20)-1<<19
				if got, want := eval(e, x+a, y), eval(e, x, y)+s; got != want {
					t.Fatalf("%v with v moving by %d: shift %d, but v=%d gives %d and v=%d gives %d", e, a, s, x, eval(e, x, y), x+a, got)
				}
			}
		}
	}
	if proven < 40 {
		t.Errorf("%d (form, move) pairs proven: the rules prove too little", proven)
	}
	for _, m := range []struct {
		a    int64
		want bool
	}{{512, true}, {1024, true}, {256, false}, {8, false}} {
		p := &shiftProof{vars: ptrMapOf(map[*ir.Var]int64{v: m.a, w: 0})}
		if s := p.expr(swz(v), false); (s != noShift) != m.want || (m.want && s != m.a) {
			t.Errorf("swizzle with the offset moving by %d: shift %d", m.a, s)
		}
	}
}

// TestRangedBlockShifts checks rangedShift's rule for quotients and
// remainders by evaluation: when every value v takes lies in one block
// of the divisor, v // c, v >> k keep their value and v % c, v & (2^k -
// 1) move with v (a warpgroup's tid_in_wg // 64 and % 64 over its warps
// 2 and 3); when the values cross a block boundary no shift is given.
func TestRangedBlockShifts(t *testing.T) {
	v := &ir.Var{Name: "v", Type: ir.DataType{Code: ir.Int, Bits: 32}}
	c := func(x int64) ir.Expr { return &ir.IntImm{Value: x} }
	bin := func(op ir.BinOp, a, b ir.Expr) ir.Expr { return &ir.Binary{Op: op, A: a, B: b} }
	forms := []ir.Expr{
		bin(ir.FloorDiv, v, c(64)),
		bin(ir.FloorMod, v, c(64)),
		bin(ir.Shr, v, c(6)),
		bin(ir.BitAnd, v, c(63)),
		bin(ir.BitAnd, v, c(48)), // not a mask of low bits
		bin(ir.Add, bin(ir.Mul, bin(ir.FloorDiv, v, c(64)), c(2048)), bin(ir.Mul, bin(ir.FloorMod, v, c(64)), c(8))),
	}
	for _, r := range []struct {
		lo, hi, a int64
		proven    []bool // per form
	}{
		{64, 127, 32, []bool{true, true, true, true, false, true}},     // warps 2 and 3 of a warpgroup
		{0, 127, 32, []bool{false, false, false, false, false, false}}, // the whole warpgroup
		{-64, -1, 32, []bool{true, true, true, true, false, true}},     // floor semantics below 0
		{96, 127, 0, []bool{true, true, true, true, true, true}},       // no move
	} {
		for i, e := range forms {
			p := &shiftProof{vars: ptrMapOf(map[*ir.Var]int64{v: r.a})}
			p.setRange(v, mkIval(r.lo, r.hi))
			s := p.expr(e, false)
			if (s != noShift) != r.proven[i] {
				t.Errorf("%v over [%d, %d] moving by %d: shift %d, proven want %v", e, r.lo, r.hi, r.a, s, r.proven[i])
				continue
			}
			if s == noShift {
				continue
			}
			for x := r.lo; x+r.a <= r.hi; x++ {
				at := func(x int64) int64 { return evalForm(t, e, v, x, 0) }
				if at(x+r.a) != at(x)+s {
					t.Fatalf("%v: v=%d gives %d, v=%d gives %d, shift %d", e, x, at(x), x+r.a, at(x+r.a), s)
				}
			}
		}
	}
}

// TestDefine: a definition makes the proof's pass go again only when
// something read the value it changes (read unset counts as 0).
func TestDefine(t *testing.T) {
	for _, c := range []struct {
		old   int64
		ok    bool
		s     int64
		n     int64
		again bool
	}{
		{0, false, 4, 4, false},            // read by nothing
		{readUnset, true, 0, 0, false},     // read as 0, and 0 it is
		{readUnset, true, 4, 4, true},      // read as 0, but it moves
		{4, true, 4, 4, false},             // the same again
		{4, true, 8, noShift, true},        // two shifts
		{noShift, true, 8, noShift, false}, // no shift already
		{unsetShift, true, 8, 8, true},     // (a value set unset)
	} {
		n, again := define(c.old, c.ok, c.s)
		if n != c.n || again != c.again {
			t.Errorf("define(%d, %v, %d) = %d, %v; want %d, %v", c.old, c.ok, c.s, n, again, c.n, c.again)
		}
	}
}

// evalForm evaluates e, a form of integer constants, variables and
// binary operators, with v at x and every other variable at y.
func evalForm(t *testing.T, e ir.Expr, v *ir.Var, x, y int64) int64 {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value
	case *ir.Var:
		if e == v {
			return x
		}
		return y
	case *ir.Binary:
		r, _ := scalarBinary(e.Op, evalForm(t, e.A, v, x, y), evalForm(t, e.B, v, x, y))
		return r
	}
	t.Fatalf("form %T", e)
	return 0
}
