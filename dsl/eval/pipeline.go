package eval

import (
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The mbarrier helpers of tvm/backend/cuda/lang/pipeline.py (also reached
// as tvm.tirx.lang.pipeline): MBarrier(pool, depth) and its subclasses
// allocate `depth` uint64 barriers from an SMEMPool (align 8) and
// `.ptr_to([i])` is the address of barrier i, what copy_async's mbar=
// takes. Their init/arrive/wait methods emit PTX the dispatcher does not
// read; they stay opaque. PipelineState, Pipeline and the schedulers are
// opaque too.

const pipelinePath = "tvm.backend.cuda.lang.pipeline"

// BarrierV is an MBarrier, TMABar or TCGen05Bar object.
type BarrierV struct {
	base
	Class string
	Buf   *ir.Buffer
	Depth int64
}

func (v *BarrierV) TypeName() string { return v.Class }

func pipelineAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "MBarrier", "TMABar", "TCGen05Bar":
		return builtin(name, func(ev *evaluator, c *call) Value { return ev.newBarrier(name, c) }), true
	}
	return nil, false
}

// newBarrier is MBarrier(pool, depth, phase_offset=0, leader=None).
func (ev *evaluator) newBarrier(class string, c *call) Value {
	if len(c.args) < 2 {
		return &OpaqueV{base{c.span}, class + "(...)"}
	}
	pool, ok := c.args[0].(*PoolV)
	if !ok {
		if isErr(c.args[0]) {
			return c.args[0]
		}
		return &OpaqueV{base{c.span}, class + "(...)"}
	}
	depth, ok := ev.intArg(c.args[1], c.argSpans[1], class+" depth")
	if !ok {
		return poison(c.span)
	}
	alloc := &call{span: c.span, fnSpan: c.fnSpan, fr: c.fr, node: c.node,
		args:     []Value{&TupleV{base{c.argSpans[1]}, []Value{&IntV{base{c.argSpans[1]}, depth}}}, &StrV{base{c.span}, "uint64"}},
		argSpans: []source.Span{c.argSpans[1], c.span},
		kwargs:   []kwarg{{"align", &IntV{base{c.span}, 8}, c.span, c.span}}}
	b, ok := ev.poolAlloc(pool, alloc).(*BufferV)
	if !ok {
		return poison(c.span)
	}
	return &BarrierV{base: base{c.span}, Class: class, Buf: b.B, Depth: depth}
}

func (ev *evaluator) barrierAttr(b *BarrierV, name string, span source.Span) Value {
	switch name {
	case "ptr_to":
		return ev.bufferAttr(&BufferV{base{span}, b.Buf}, "ptr_to", span)
	case "buf":
		return &BufferV{base{span}, b.Buf}
	case "depth":
		return &IntV{base{span}, b.Depth}
	}
	return &OpaqueV{base{span}, b.Class + "." + name}
}
