package cuda

import (
	"fmt"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Buffer addressing. A buffer access A[i, j] becomes A_ptr[<flat>], where
// <flat> is the element address the buffer's layout gives the logical
// coordinate (i, j) on memory axis m:
//
//   - no layout: row-major over Shape;
//   - TileLayout: the layout grouped by Shape (layout.TryGroup); each index
//     is split into mixed-radix digits over its own group's extents and the
//     digits are multiplied by their strides (§2.4 group-first apply). When
//     grouping fails, the row-major flat index is split over all shard
//     extents instead (the same numbers);
//   - ComposeLayout: the tile's address m, then the §2.9 swizzle, which for
//     swizzle_inner reduces to m ^ ((m >> at) & (((1 << sw) - 1) << p)).
//
// Thread-axis iters contribute nothing to a memory address; a layout with
// thread axes can only be indexed at constant coordinates (TVM rejects
// direct BufferLoad/BufferStore on such buffers), e.g. &R[0, 0].
// Param buffers add their ElemOffset.

// access prints buf[<flat index>].
func (k *kernel) access(b *ir.Buffer, idx []ir.Expr) string {
	p := k.bufPtr(b)
	if k.err != nil {
		return p + "[0]"
	}
	flat, err := flatIndex(b, idx)
	if err != nil {
		k.fail("buffer %s: %v", b.Name, err)
		return p + "[0]"
	}
	return p + "[" + k.top(flat) + "]"
}

// flatIndex is the element offset of idx in b's storage.
func flatIndex(b *ir.Buffer, idx []ir.Expr) (ir.Expr, error) {
	if len(idx) != len(b.Shape) {
		return nil, fmt.Errorf("%d indices for a rank-%d buffer", len(idx), len(b.Shape))
	}
	var addr ir.Expr
	switch l := b.Layout.(type) {
	case nil:
		addr = rowMajor(b.Shape, idx)
	case *layout.TileLayout:
		a, err := tileAddress(l, b.Shape, idx)
		if err != nil {
			return nil, err
		}
		addr = a
	case *layout.ComposeLayout:
		a, err := tileAddress(l.Tile, b.Shape, idx)
		if err != nil {
			return nil, err
		}
		addr = swizzle(l, a)
	default:
		return nil, fmt.Errorf("unknown layout type %T", l)
	}
	if b.Kind == ir.ParamBuffer && b.ElemOffset != 0 {
		addr = ir.AddE(addr, cst(b.ElemOffset))
	}
	return ir.SimplifyIndex(addr), nil
}

// rowMajor is Σ idx[d] · ∏ shape[d+1:].
func rowMajor(shape []int64, idx []ir.Expr) ir.Expr {
	var addr ir.Expr = cst(0)
	stride := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		addr = ir.AddE(ir.MulE(idx[d], cst(stride)), addr)
		stride *= shape[d]
	}
	return addr
}

func tileAddress(t *layout.TileLayout, shape []int64, idx []ir.Expr) (ir.Expr, error) {
	for a := range t.Offset {
		if a.IsMemory() && a != layout.M && t.Offset[a] != 0 {
			return nil, fmt.Errorf("layout %s has memory axis %s besides m", t, a.Name)
		}
	}
	for _, it := range t.Shard {
		if it.Axis.IsMemory() && it.Axis != layout.M {
			return nil, fmt.Errorf("layout %s has memory axis %s besides m", t, it.Axis.Name)
		}
	}
	if t.HasThreadAxis() {
		coord := make([]int64, len(idx))
		for d, x := range idx {
			c, ok := ir.ConstInt(x)
			if !ok {
				return nil, fmt.Errorf("layout %s has thread axes; index it through a .local() view", t)
			}
			coord[d] = c
		}
		return cst(layout.ApplyShape(t, coord, shape)[layout.M]), nil
	}
	var addr ir.Expr = cst(t.Offset[layout.M])
	if g, seps, ok := layout.TryGroup(t, shape); ok {
		for d := range shape {
			addr = ir.AddE(addr, digits(idx[d], g.Shard[seps[d]:seps[d+1]]))
		}
		return addr, nil
	}
	return ir.AddE(addr, digits(rowMajor(shape, idx), t.Shard)), nil
}

// digits splits x into mixed-radix digits over its iters (last fastest, the
// first digit not reduced) and returns Σ digit·stride.
func digits(x ir.Expr, its []layout.Iter) ir.Expr {
	var sum ir.Expr = cst(0)
	below := int64(1) // ∏ extents of the iters after i
	for i := len(its) - 1; i >= 0; i-- {
		it := its[i]
		if it.Stride != 0 && it.Extent != 1 {
			d := ir.DivE(x, cst(below))
			if i > 0 {
				d = ir.ModE(d, cst(it.Extent))
			}
			sum = ir.AddE(ir.MulE(d, cst(it.Stride)), sum)
		}
		below *= it.Extent
	}
	return sum
}

// swizzle applies c's XOR swizzle to the element address m (§2.9).
func swizzle(c *layout.ComposeLayout, m ir.Expr) ir.Expr {
	if c.SwizzleLen == 0 {
		return m
	}
	if v, ok := ir.ConstInt(m); ok {
		return cst(c.SwizzleAddr(v))
	}
	mask := cst((int64(1)<<c.SwizzleLen - 1) << c.PerElement)
	at := cst(int64(c.AtomLen))
	if c.SwizzleInner {
		// q ^ ((q & outer) >> at) on the chunk index q = m >> p flips bits
		// [p, p+sw) of m with bits [p+at, p+at+sw).
		return ir.Bin(ir.BitXor, m, ir.Bin(ir.BitAnd, ir.Bin(ir.Shr, m, at), mask))
	}
	// q ^ ((q & inner) << at) flips bits [p+at, p+at+sw) with bits [p, p+sw).
	return ir.Bin(ir.BitXor, m, ir.Bin(ir.Shl, ir.Bin(ir.BitAnd, m, mask), at))
}

// storageCount is the number of elements to allocate for b: its flat size
// without a layout, else the memory span of its layout (thread axes
// dropped, §5.2), never less than the element count for a trivial layout
// (a bare swizzle atom over a larger buffer), rounded up to the block that
// a swizzle permutes within.
func storageCount(b *ir.Buffer) (int64, error) {
	var tile *layout.TileLayout
	block := int64(1)
	switch l := b.Layout.(type) {
	case nil:
		return max(b.NumElements(), 1), nil
	case *layout.TileLayout:
		tile = l
	case *layout.ComposeLayout:
		tile = l.Tile
		if l.SwizzleInner {
			block = int64(1) << (l.PerElement + l.SwizzleLen)
		} else {
			block = int64(1) << (l.PerElement + l.SwizzleLen + l.AtomLen)
		}
	default:
		return 0, fmt.Errorf("unknown layout type %T", l)
	}
	n := layout.SpanOf(tile, nil)
	if layout.IsTrivial(tile) && !tile.HasThreadAxis() {
		n = max(n, b.NumElements())
	}
	n = (n + block - 1) / block * block
	return max(n, 1), nil
}

// smallConsts are shared int32 constants for cst (IR nodes are immutable).
var smallConsts = func() (cs [1024 + 64]*ir.IntImm) {
	for i := range cs {
		cs[i] = ir.Const(int64(i) - 64)
	}
	return cs
}()

// cst is ir.Const without the allocation for values in [-64, 1024): the
// address arithmetic's constants were 5% of BenchmarkPrintCUDA3000
// allocations.
func cst(v int64) *ir.IntImm {
	if v >= -64 && v < 1024 {
		return smallConsts[v+64]
	}
	return ir.Const(v)
}
