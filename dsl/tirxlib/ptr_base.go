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
func pointerInto(p ir.Expr) (*ir.Buffer, int64) {
	for {
		c, ok := p.(*ir.Call)
		if !ok || c.Op != "reinterpret" || len(c.Args) != 1 {
			break
		}
		p = c.Args[0]
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
