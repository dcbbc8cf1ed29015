package memory

import (
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Element loads next to half-precision math stay scalar until ptxas.
//
// nvcc's LLVM load/store vectorizer joins the element loads of an
// unrolled loop into vector loads only between instructions that may not
// touch memory. cuda_fp16.hpp and cuda_bf16.hpp implement the arithmetic,
// math functions and conversions of half and bfloat16 values with inline
// asm, which the vectorizer must assume does. In an unrolled loop whose
// body computes with such values, the element loads reach the PTX as
// scalar ld.shared.u16 and ld.shared.f32. ptxas joins adjacent loads of
// one basic block again: 16-bit ones into LDS.64 at most, 32-bit ones
// into LDS.128. An operation with a slow path (a float division,
// IEEE sqrtf) puts a branch between the loads, and none is joined.
// Stores of the same bundles (a loop of plain stores) are vectorized as
// before.
//
// Measured (nvcc 13 -O2 -arch=sm_90a: the PTX, the SASS and ncu's
// counts):
//   - r054's `hsqrt(X_s[s*512 + tid*8 + v])` over 8 halves: 8 ld.shared.u16
//     in the PTX, LDS.64 x2 in the SASS;
//   - ewise_cast's `(half)A_s[...]` over 4 floats: 4 ld.shared.f32,
//     one LDS.128;
//   - r055's `(half)sqrtf(A_s[...])`: 32 ld.shared.f32, 32 LDS;
//   - r070's half add, sub and mul: LDS.64; its fdiv: LDS.U16 x32.
//
// The stores into the bundle and the copies through tvm_builtin_copy
// are 128-bit throughout.

// Classes of an unrolled loop body, by what its element loads become.
const (
	// vectorLoads: no half math; the vectorizer joins the loads (up
	// to 16 bytes)
	vectorLoads int8 = iota
	// scalarLoads: half math; ptxas joins adjacent loads of one basic
	// block, 16-bit ones up to 8 bytes, 32-bit ones up to 16
	scalarLoads
	// apartLoads: half math and a slow path (a branch) between the
	// loads: none is joined
	apartLoads
)

// scalarRule enables the classes; tests turn it off to compare.
var scalarRule = true

// loadClass returns the class of the unrolled loop s's body, found once
// per loop.
func (m *machine) loadClass(s *ir.For) int8 {
	if !scalarRule {
		return vectorLoads
	}
	if c, ok := m.loadClasses[s]; ok {
		return c
	}
	c := bodyLoadClass(s.Body)
	if m.loadClasses == nil {
		m.loadClasses = map[*ir.For]int8{}
	}
	m.loadClasses[s] = c
	return c
}

// bodyLoadClass is the class of b's arithmetic, nested loops included.
func bodyLoadClass(b *ir.Block) int8 {
	var asm, slow bool
	ir.WalkStmts(b, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Store:
			exprOps(s.Value, &asm, &slow)
		case *ir.Let:
			exprOps(s.Value, &asm, &slow)
		case *ir.Assign:
			exprOps(s.Value, &asm, &slow)
		}
	})
	switch {
	case asm && slow:
		return apartLoads
	case asm:
		return scalarLoads
	}
	return vectorLoads
}

// exprOps sets asm when e computes with half values (inline asm in
// cuda_fp16.hpp), slow when it has an operation whose slow path is a
// branch (a float division, an f32 or f64 square root).
func exprOps(e ir.Expr, asm, slow *bool) {
	walkExpr(e, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Binary:
			t := valueType(x.A)
			if !t.IsValid() {
				t = valueType(x.B)
			}
			if u := valueType(x.B); isHalf(u) {
				t = u
			}
			if x.Op == ir.Div && t.IsFloat() {
				*slow = true
			}
			if isHalf(t) {
				switch x.Op {
				case ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Min, ir.Max:
					*asm = true
				}
			}
		case *ir.Call:
			if len(x.Args) != 1 || !halfMath[x.Op] {
				return
			}
			switch t := valueType(x); {
			case isHalf(t):
				*asm = true
			case x.Op == "sqrt" && t.Code == ir.Float:
				*slow = true
			}
		case *ir.Cast:
			// a conversion between half and another type (cvt in asm)
			if from := valueType(x.X); from.IsValid() && isHalf(from) != isHalf(x.To) {
				*asm = true
			}
		}
	})
}

// halfMath are the unary math calls codegen prints as hsqrt, hexp, hexp2
// and hlog2 for half and bfloat16 values (codegen/cuda math).
var halfMath = map[string]bool{"sqrt": true, "exp": true, "exp2": true, "log2": true}

// isHalf reports float16 and bfloat16.
func isHalf(t ir.DataType) bool {
	return t.Bits == 16 && (t.Code == ir.Float || t.Code == ir.BFloat)
}

// valueType is the type of the value e computes, as far as the lowered
// code shows it (the invalid type when it does not).
func valueType(e ir.Expr) ir.DataType {
	switch e := e.(type) {
	case *ir.Load:
		return e.Buf.Dtype
	case *ir.Cast:
		return e.To
	case *ir.FloatImm:
		return e.Type
	case *ir.Var:
		return e.Type
	case *ir.Call:
		if e.Type.IsValid() {
			return e.Type
		}
		if len(e.Args) == 1 {
			return valueType(e.Args[0])
		}
	case *ir.Binary:
		if t := valueType(e.A); t.IsValid() {
			return t
		}
		return valueType(e.B)
	case *ir.Select:
		return valueType(e.A)
	}
	return ir.DataType{}
}

// loadLimit is the widest access the element loads of width bytes join
// into in a loop body of class c (16: any).
func loadLimit(c int8, width int64) int64 {
	switch {
	case c == apartLoads:
		return width
	case c == scalarLoads && width < 4:
		return 8
	}
	return 16
}

// dividesUnrolled reports whether an element load's index, as the .cu
// prints it, divides (or takes the remainder of) a value that holds an
// unrolled loop's variable: ptxas joins scalar loads only at constant
// offsets from one address, which such an index is not after unrolling
// (r075's broadcast operand Y_s[(X + v) // 20, 0, (X + v) % 4]: LDS.U16
// x4 per bundle where X_s[X // 20, X // 4 % 5, X % 4], which TVM prints
// as X_s_ptr[X + v], is one LDS.64). Digits of one value over a
// row-major buffer print as the value itself (warps.go digits).
func (m *machine) dividesUnrolled(buf *ir.Buffer, idx []ir.Expr, flat bool) bool {
	found := false
	for _, x := range idx {
		walkExpr(x, func(e ir.Expr) {
			b, ok := e.(*ir.Binary)
			if found || !ok || (b.Op != ir.FloorDiv && b.Op != ir.FloorMod && b.Op != ir.Div) {
				return
			}
			var unr, other bool
			m.leaves(b.A, &unr, &other, 0)
			found = unr
		})
	}
	if !found || flat || len(idx) != len(buf.Shape) || len(idx) < 2 {
		return found
	}
	if buf.Layout != nil && !m.rowMajorBuf(buf) {
		return true
	}
	strides := make([]int64, len(idx))
	s := int64(1)
	for d := len(idx) - 1; d >= 0; d-- {
		strides[d] = s
		s *= buf.Shape[d]
	}
	e, _, y := digits(idx, buf.Shape, strides, 0)
	return e != len(idx)-1 || y != nil
}

// rowMajorBuf reports whether buf's tile layout is its row-major one
// (kept in m.rowMajor; divIndex asks it too).
func (m *machine) rowMajorBuf(buf *ir.Buffer) bool {
	t, ok := buf.Layout.(*layout.TileLayout)
	if !ok {
		return false
	}
	rm, ok := m.rowMajor[buf]
	if !ok {
		rm = layout.Equal(t, layout.RowMajor(buf.Shape...))
		m.rowMajor[buf] = rm
	}
	return rm
}
