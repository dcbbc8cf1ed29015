package ir

import "github.com/tilels/tilels/dsl/source"

// Smart constructors that fold constants, so lowered IR prints like TVM's
// simplified output (f*128 + tid*4, not f*128 + tid*4 + 0*1).

// Const returns an int32 constant.
func Const(v int64) *IntImm { return &IntImm{Value: v, Type: Int32, Span: source.NoSpan} }

// ConstInt returns (value, true) when e is an integer constant.
func ConstInt(e Expr) (int64, bool) {
	if c, ok := e.(*IntImm); ok {
		return c.Value, true
	}
	return 0, false
}

// AddE returns a+b folded.
func AddE(a, b Expr) Expr {
	ca, aok := ConstInt(a)
	cb, bok := ConstInt(b)
	switch {
	case aok && bok:
		return Const(ca + cb)
	case aok && ca == 0:
		return b
	case bok && cb == 0:
		return a
	}
	return &Binary{Op: Add, A: a, B: b, Span: source.NoSpan}
}

// SubE returns a-b folded.
func SubE(a, b Expr) Expr {
	ca, aok := ConstInt(a)
	cb, bok := ConstInt(b)
	switch {
	case aok && bok:
		return Const(ca - cb)
	case bok && cb == 0:
		return a
	}
	return &Binary{Op: Sub, A: a, B: b, Span: source.NoSpan}
}

// MulE returns a*b folded.
func MulE(a, b Expr) Expr {
	ca, aok := ConstInt(a)
	cb, bok := ConstInt(b)
	switch {
	case aok && bok:
		return Const(ca * cb)
	case (aok && ca == 0) || (bok && cb == 0):
		return Const(0)
	case aok && ca == 1:
		return b
	case bok && cb == 1:
		return a
	}
	return &Binary{Op: Mul, A: a, B: b, Span: source.NoSpan}
}

// DivE returns floordiv(a, b) folded.
func DivE(a, b Expr) Expr {
	ca, aok := ConstInt(a)
	cb, bok := ConstInt(b)
	switch {
	case aok && bok && cb != 0:
		return Const(floorDiv(ca, cb))
	case bok && cb == 1:
		return a
	}
	return &Binary{Op: FloorDiv, A: a, B: b, Span: source.NoSpan}
}

// ModE returns floormod(a, b) folded.
func ModE(a, b Expr) Expr {
	ca, aok := ConstInt(a)
	cb, bok := ConstInt(b)
	switch {
	case aok && bok && cb != 0:
		return Const(ca - floorDiv(ca, cb)*cb)
	case bok && cb == 1:
		return Const(0)
	}
	return &Binary{Op: FloorMod, A: a, B: b, Span: source.NoSpan}
}

// Bin builds an unfolded binary node.
func Bin(op BinOp, a, b Expr) Expr { return &Binary{Op: op, A: a, B: b, Span: source.NoSpan} }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
