package tirxlib

import (
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// DeepGEMM-style kernels carve one shared arena into typed buffers
// through pointers (paged_mqa_logits_fp8.py, mega_moe.py):
//
//	smem = T.alloc_buffer([N], "uint8", scope="shared.dyn")
//	q_data: T.let = T.reinterpret(PointerType(PrimType("float8_e4m3fn")), smem.ptr_to([off]))
//	smem_q = T.decl_buffer(shape, "float8_e4m3fn", data=q_data, scope="shared.dyn")
//
// The buffer's data is the pointer variable (as TVM prints and compiles
// it); pointerInto finds the storage it points into, which the memory
// analysis needs to place its accesses (ir.Buffer.PtrBase).

// pointerInto returns the root buffer pointer value p points into and
// its byte offset there, when both are static: p is T.reinterpret of the
// address of an element (at constant indices) of an allocation or
// parameter that is no view; nil otherwise.
//
// T.ptr_byte_offset(base, n, dtype) and T.handle_add_byte_offset(base, n)
// of such a pointer, or of a root buffer's .data, add n bytes when n is a
// constant.
func pointerInto(p ir.Expr) (*ir.Buffer, int64) {
	for {
		c, ok := p.(*ir.Call)
		if !ok {
			break
		}
		switch {
		case c.Op == "reinterpret" && len(c.Args) == 1:
			p = c.Args[0]
			continue
		case c.Op == "ptr_byte_offset" && len(c.Args) == 3, c.Op == "handle_add_byte_offset" && len(c.Args) == 2:
			n, ok := ir.ConstInt(c.Args[1])
			if !ok {
				return nil, 0
			}
			var b *ir.Buffer
			var off int64
			if d, isData := c.Args[0].(*ir.BufferData); isData {
				b = d.Buf
				if b.Base != nil || b.PtrBase != nil || b.ElemOffset != 0 || b.ElemOffsetExpr != nil || (b.Kind != ir.AllocBuffer && b.Kind != ir.ParamBuffer) {
					return nil, 0
				}
			} else if b, off = pointerInto(c.Args[0]); b == nil {
				return nil, 0
			}
			return b, off + n
		}
		break
	}
	a, ok := p.(*ir.AddressOf)
	if !ok || a.FlatIndex || len(a.Indices) != 1 {
		return nil, 0
	}
	b := a.Buf
	if b.Base != nil || b.PtrBase != nil || b.ElemOffset != 0 || b.ElemOffsetExpr != nil || len(b.Shape) != 1 ||
		(b.Kind != ir.AllocBuffer && b.Kind != ir.ParamBuffer) {
		return nil, 0
	}
	i, ok := ir.ConstInt(a.Indices[0])
	if !ok || i < 0 || (b.Shape[0] > 0 && i >= b.Shape[0]) {
		return nil, 0
	}
	off := i
	switch l := b.Layout.(type) {
	case nil:
	case *layout.TileLayout:
		if !l.IsMemoryOnly() {
			return nil, 0
		}
		off = l.ApplyAxis(i, layout.M)
	default:
		return nil, 0
	}
	eb := int64(b.Dtype.Bits) / 8
	if eb < 1 {
		return nil, 0
	}
	return b, off * eb
}
