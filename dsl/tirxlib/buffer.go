package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

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
func bufferWithDtype(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "with_dtype", 1, "dtype") {
		return eval.Poison(c.At)
	}
	if !ev.RequireKernel(c, "Buffer.with_dtype") {
		return eval.Poison(c.At)
	}
	if eval.IsErr(c.Args[0]) {
		return ev.NeedConcrete(c.Args[0], c.ArgSpans[0], "Buffer.with_dtype's dtype")
	}
	dt, ok := ev.DtypeOf(c.Args[0], c.ArgSpans[0])
	if !ok {
		return eval.Poison(c.At)
	}
	name, nameSpan := ev.HintName(c, buf.Name+"_"+dt.String())
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: buf.Shape, ShapeExpr: buf.ShapeExpr, Dtype: dt, Scope: buf.Scope,
		Layout: buf.Layout, ElemOffset: buf.ElemOffset, ElemOffsetExpr: buf.ElemOffsetExpr, Base: buf, Kind: ir.DeclBuffer, Span: c.At}
	if ev.Kern.BadLayout[buf] {
		ev.Kern.BadLayout[nb] = true
	}
	ev.AddBufferSite(nb, nameSpan, c.At, source.NoSpan)
	emitView(ev, nb) // buffer_view_rearrange.go: tensor memory keeps its allocated_addr
	return &eval.BufferV{Base: eval.Base{At: c.At}, B: nb}
}
