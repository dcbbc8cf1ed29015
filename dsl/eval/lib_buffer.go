package eval

import (
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Buffer.with_dtype(dtype) of tvm/tirx/buffer.py (BufferVar::with_dtype in
// src/tirx/ir/buffer.cc): the same buffer type with only the element type
// replaced: shape, layout, element offset, storage and, for tensor memory,
// allocated_addr are kept as they are (no rescaling, unlike
// Buffer.view(dtype)). FlashMLA reads a float32 TMEM accumulator back as
// uint32 registers this way: tmem_p.rearrange(...).with_dtype("uint32").

// bufferWithDtype is buf.with_dtype(dtype).
func (ev *evaluator) bufferWithDtype(buf *ir.Buffer, c *call) Value {
	if !ev.checkArgs(c, "with_dtype", 1, "dtype") {
		return poison(c.span)
	}
	if !ev.requireKernel(c, "Buffer.with_dtype") {
		return poison(c.span)
	}
	if isErr(c.args[0]) {
		return ev.needConcrete(c.args[0], c.argSpans[0], "Buffer.with_dtype's dtype")
	}
	dt, ok := ev.dtypeOf(c.args[0], c.argSpans[0])
	if !ok {
		return poison(c.span)
	}
	name, nameSpan := ev.hintName(c, buf.Name+"_"+dt.String())
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: buf.Shape, ShapeExpr: buf.ShapeExpr, Dtype: dt, Scope: buf.Scope,
		Layout: buf.Layout, ElemOffset: buf.ElemOffset, ElemOffsetExpr: buf.ElemOffsetExpr, Base: buf, Kind: ir.DeclBuffer, Span: c.span}
	if ev.kern.badLayout[buf] {
		ev.kern.badLayout[nb] = true
	}
	ev.addBufferSite(nb, nameSpan, c.span, source.NoSpan)
	ev.emitView(nb) // lib_buffer_view_rearrange.go: tensor memory keeps its allocated_addr
	return &BufferV{base{c.span}, nb}
}
