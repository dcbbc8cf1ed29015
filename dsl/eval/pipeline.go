package eval

import (
	"fmt"
	"math/bits"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The mbarrier helpers of tvm/backend/cuda/lang/pipeline.py (also reached
// as tvm.tirx.lang.pipeline): MBarrier(pool, depth) and its subclasses
// allocate `depth` uint64 barriers from an SMEMPool (align 8) and
// `.ptr_to([i])` is the address of barrier i, what copy_async's mbar=
// takes. Their init/arrive/wait methods emit PTX the dispatcher does not
// read; they stay opaque. Pipeline(pool, stages, *, full, empty,
// init_full=1, init_empty=1, empty_phase_offset=0, leader=None) is the
// pair of barriers it makes and initialises (full, then empty);
// PipelineState(depth, phase=None) is its stage and phase local scalars
// with init(phase) and advance(); the schedulers are opaque.

const pipelinePath = "tvm.backend.cuda.lang.pipeline"

// BarrierV is an MBarrier, TMABar or TCGen05Bar object.
type BarrierV struct {
	base
	Class string
	Buf   *ir.Buffer
	Depth int64
	// PhaseOffset is XORed into the phase of every wait (phase_offset=).
	PhaseOffset int64
	// Leader is the leader= predicate of the thread that runs init; nil
	// is the default, thread rank 0.
	Leader ir.Expr
	// RemoteOf is the local barrier of a remote_view (Buf is then the
	// mapped view); nil for a local barrier. lib_pipeline_remote.go.
	RemoteOf *BarrierV
}

func (v *BarrierV) TypeName() string { return v.Class }

func pipelineAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "MBarrier", "TMABar", "TCGen05Bar":
		return builtin(name, func(ev *evaluator, c *call) Value { return ev.newBarrier(name, c) }), true
	case "Pipeline":
		return builtin(name, (*evaluator).newPipeline), true
	case "PipelineState":
		return builtin(name, (*evaluator).newPipelineState), true
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
	bv := &BarrierV{base: base{c.span}, Class: class, Buf: b.B, Depth: depth}
	if v := c.arg(2, "phase_offset"); v != nil {
		if bv.PhaseOffset, ok = ev.intArg(v, c.argSpan(2, "phase_offset"), class+" phase_offset"); !ok {
			return poison(c.span)
		}
	}
	if v := c.arg(3, "leader"); v != nil && !isNoneV(v) {
		if isErr(v) {
			return ev.needConcrete(v, c.argSpan(3, "leader"), class+"'s leader")
		}
		e, ok := ev.toIR(v, ir.BoolT)
		if !ok {
			return ev.errorf(c.argSpan(3, "leader"), CodeType, "%s leader must be a condition, got %s", class, describe(v))
		}
		bv.Leader = e
	}
	return bv
}

func (ev *evaluator) barrierAttr(b *BarrierV, name string, span source.Span) Value {
	switch name {
	case "ptr_to":
		return ev.bufferAttr(&BufferV{base{span}, b.Buf}, "ptr_to", span)
	case "buf":
		return &BufferV{base{span}, b.Buf}
	case "depth":
		return &IntV{base{span}, b.Depth}
	case "init", "wait", "arrive":
		if b.RemoteOf != nil {
			return method(b.Class+"."+name, func(ev *evaluator, c *call) Value { return ev.remoteViewCall(b, name, c) })
		}
		return method(b.Class+"."+name, func(ev *evaluator, c *call) Value { return ev.barrierCall(b, name, c) })
	case "remote_view": // lib_pipeline_remote.go
		return method(b.Class+".remote_view", func(ev *evaluator, c *call) Value { return ev.barrierRemoteView(b, c) })
	}
	return &OpaqueV{base{span}, b.Class + "." + name}
}

// barrierCall emits MBarrier.init(count), .wait(stage, phase) and
// .arrive(stage) as tvm.tirx.lang.pipeline defines them (T.inline
// methods): init has the leader thread (thread rank 0; tilels' leader is
// threadIdx.x == 0, the same thread in the 1-D blocks it models) set up
// every stage, wait spins on the stage's phase, arrive arrives on the
// local CTA's barrier. A remote arrive (cta_id=) is not modelled.
func (ev *evaluator) barrierCall(b *BarrierV, name string, c *call) Value {
	if !ev.requireKernel(c, b.Class+"."+name) {
		return poison(c.span)
	}
	ptr := func(stage ir.Expr) ir.Expr {
		return &ir.AddressOf{Buf: b.Buf, Indices: []ir.Expr{stage}, Span: c.span}
	}
	stmt := func(op string, args ...ir.Expr) ir.Stmt {
		return &ir.Evaluate{X: &ir.Call{Op: op, Args: args, Span: c.span}, Span: c.span}
	}
	arg := func(i int, pname string) (ir.Expr, bool) {
		v := c.arg(i, pname)
		if v == nil {
			ev.errorf(c.span, CodeType, "%s.%s() missing required argument '%s'", b.Class, name, pname)
			return nil, false
		}
		if isErr(v) {
			ev.needConcrete(v, c.argSpan(i, pname), b.Class+"."+name+"'s "+pname)
			return nil, false
		}
		e, ok := ev.toIR(v, ir.Int32)
		if !ok {
			ev.errorf(c.argSpan(i, pname), CodeType, "%s.%s %s must be an integer, got %s", b.Class, name, pname, describe(v))
		}
		return e, ok
	}
	switch name {
	case "init":
		if !ev.checkArgs(c, b.Class+".init", 1, "count") {
			return poison(c.span)
		}
		count, ok := arg(0, "count")
		if !ok {
			return poison(c.span)
		}
		then := &ir.Block{Span: c.span}
		for i := int64(0); i < b.Depth; i++ {
			then.Stmts = append(then.Stmts, stmt(ir.OpMbarrierInit, ptr(ir.Const(i)), count))
		}
		leader := b.Leader
		if leader == nil {
			leader = &ir.Binary{Op: ir.EQ, A: &ir.ThreadIndex{Axis: "tx", Span: c.span}, B: ir.Const(0), Span: c.span}
		}
		ev.emitStmt(&ir.If{Cond: leader, Then: then, Span: c.span})
	case "wait":
		if !ev.checkArgs(c, b.Class+".wait", 2, "stage", "phase") {
			return poison(c.span)
		}
		stage, ok1 := arg(0, "stage")
		phase, ok2 := arg(1, "phase")
		if !ok1 || !ok2 {
			return poison(c.span)
		}
		if b.PhaseOffset != 0 {
			phase = ir.Bin(ir.BitXor, phase, ir.Const(b.PhaseOffset))
		}
		ev.emitStmt(stmt(ir.OpMbarrierTryWait, ptr(stage), phase))
	case "arrive":
		// Each class has its own arrive parameters (pipeline.py; `remote`
		// is newer TVM's spelling of cta_id). The forms other than a local
		// arrive (expect_tx, tcgen05.commit, remote) are not modelled.
		params := []string{"stage", "cta_id", "pred", "count", "remote"}
		switch b.Class {
		case "TMABar":
			params = []string{"stage", "tx_count", "cta_id", "pred", "remote"}
		case "TCGen05Bar":
			params = []string{"stage", "cta_group", "cta_mask", "pred"}
		}
		if !ev.checkArgs(c, b.Class+".arrive", 1, params...) {
			return poison(c.span)
		}
		if b.Class == "TCGen05Bar" {
			return ev.tcgen05BarArrive(b, c)
		}
		if r := remoteArriveArg(b, c); r != nil {
			return ev.barrierArriveRemote(b, c, r) // lib_pipeline_remote.go
		}
		if b.Class == "TMABar" {
			if tx := c.arg(1, "tx_count"); tx != nil && !isNoneV(tx) {
				if r := c.arg(4, "remote"); r == nil || isNoneV(r) {
					// _arrive_tma_local: mbarrier.arrive.expect_tx on the
					// local barrier (pred= applies to remote arrives only).
					stage, ok1 := arg(0, "stage")
					n, ok2 := arg(1, "tx_count")
					if !ok1 || !ok2 {
						return poison(c.span)
					}
					ev.emitStmt(stmt(ir.OpMbarrierArriveExpect, ptr(stage), n))
					return &NoneV{base{c.span}}
				}
			}
		}
		for i, p := range params[1:] {
			if v := c.arg(i+1, p); v != nil && !isNoneV(v) && p != "pred" && p != "count" {
				what := "a remote arrive"
				switch p {
				case "tx_count":
					what = "mbarrier.arrive.expect_tx"
				}
				ev.warnf(c.span, CodeUnresolved, "%s.arrive with %s= (%s) is not modelled by tilels; statement ignored", b.Class, p, what)
				return &NoneV{base{c.span}}
			}
		}
		stage, ok := arg(0, "stage")
		if !ok {
			return poison(c.span)
		}
		ev.emitStmt(stmt(ir.OpMbarrierArrive, ptr(stage)))
	}
	return &NoneV{base{c.span}}
}

// PipelineV is a Pipeline: its full and empty barriers.
type PipelineV struct {
	base
	Stages      int64
	Full, Empty *BarrierV
}

func (*PipelineV) TypeName() string { return "Pipeline" }

// barKinds are Pipeline's barrier-type tags (_BAR_KINDS).
var barKinds = map[string]string{"tma": "TMABar", "tcgen05": "TCGen05Bar", "mbar": "MBarrier"}

// newPipeline is Pipeline(pool, stages, *, full, empty, init_full=1,
// init_empty=1, empty_phase_offset=0, leader=None): full =
// _BAR_KINDS[full](pool, stages), full.init(init_full), then the empty
// barrier with phase_offset=empty_phase_offset, empty.init(init_empty).
func (ev *evaluator) newPipeline(c *call) Value {
	if len(c.args) > 2 {
		return ev.pyErrorf(c.span, "Pipeline.__init__() takes 3 positional arguments but %d were given", len(c.args)+1)
	}
	if !ev.checkArgs(c, "Pipeline", 2, "pool", "stages", "full", "empty", "init_full", "init_empty", "empty_phase_offset", "leader") {
		return poison(c.span)
	}
	if _, ok := c.args[0].(*PoolV); !ok {
		if isErr(c.args[0]) {
			return c.args[0]
		}
		return &OpaqueV{base{c.span}, "Pipeline(...)"}
	}
	stages, ok := ev.intArg(c.args[1], c.argSpans[1], "Pipeline stages")
	if !ok {
		return poison(c.span)
	}
	p := &PipelineV{base: base{c.span}, Stages: stages}
	for i, side := range []string{"full", "empty"} {
		v := c.arg(2+i, side)
		if v == nil {
			return ev.pyErrorf(c.span, "Pipeline.__init__() missing 1 required keyword-only argument: '%s'", side)
		}
		tag, ok := ev.strArg(v, c.argSpan(2+i, side), side)
		if !ok {
			return poison(c.span)
		}
		class, known := barKinds[tag]
		if !known {
			return ev.pyErrorf(c.argSpan(2+i, side), "KeyError: %s", pyQuote(tag))
		}
		args := []Value{c.args[0], c.args[1]}
		spans := []source.Span{c.argSpans[0], c.argSpans[1]}
		off := c.arg(6, "empty_phase_offset")
		if off == nil || side == "full" {
			off = &IntV{base{c.span}, 0}
		}
		args, spans = append(args, off), append(spans, c.argSpan(6, "empty_phase_offset"))
		if l := c.arg(7, "leader"); l != nil {
			args, spans = append(args, l), append(spans, c.argSpan(7, "leader"))
		}
		b, ok := ev.newBarrier(class, &call{span: c.span, fnSpan: c.fnSpan, fr: c.fr, args: args, argSpans: spans}).(*BarrierV)
		if !ok {
			return poison(c.span)
		}
		var count Value = &IntV{base{c.span}, 1}
		if n := c.arg(4+i, "init_"+side); n != nil {
			count = n
		}
		ev.barrierCall(b, "init", &call{span: c.span, fnSpan: c.fnSpan, fr: c.fr, args: []Value{count}, argSpans: []source.Span{c.argSpan(4+i, "init_"+side)}})
		if side == "full" {
			p.Full = b
		} else {
			p.Empty = b
		}
	}
	return p
}

func (ev *evaluator) pipelineObjAttr(p *PipelineV, name string, span source.Span) Value {
	switch name {
	case "full":
		return p.Full
	case "empty":
		return p.Empty
	case "stages":
		return &IntV{base{span}, p.Stages}
	}
	return &OpaqueV{base{span}, "Pipeline." + name}
}

// PipelineStateV is a PipelineState: the ring's depth and the local int32
// scalars holding its stage and phase.
type PipelineStateV struct {
	base
	Depth        int64
	Stage, Phase *ir.Buffer
}

func (*PipelineStateV) TypeName() string { return "PipelineState" }

// newPipelineState is PipelineState(depth, phase=None): two
// T.local_scalar("int32") (stage, phase), initialised when phase is given.
func (ev *evaluator) newPipelineState(c *call) Value {
	if !ev.requireKernel(c, "PipelineState") || !ev.checkArgs(c, "PipelineState", 1, "depth", "phase") {
		return poison(c.span)
	}
	depth, ok := ev.intArg(c.args[0], c.argSpans[0], "PipelineState depth")
	if !ok {
		return poison(c.span)
	}
	name, _ := ev.hintName(c, "pipe")
	scalar := func(field string) *ir.Buffer {
		b := &ir.Buffer{Name: name + "_" + field, Shape: []int64{1}, Dtype: ir.Int32, Scope: "local", Kind: ir.AllocBuffer, Span: c.span,
			Layout: layout.NewTile([]layout.Iter{layout.It(1, 1, layout.M)}, nil, nil)}
		b.Data = &ir.Var{Name: b.Name, Type: ir.HandleT, Span: c.span}
		ev.addBufferSite(b, source.NoSpan, c.span, source.NoSpan)
		ev.emitStmt(&ir.Alloc{Buf: b, Span: c.span})
		return b
	}
	ps := &PipelineStateV{base: base{c.span}, Depth: depth, Stage: scalar("stage"), Phase: scalar("phase")}
	if v := c.arg(1, "phase"); v != nil && !isNoneV(v) {
		if !ev.pipelineStateInit(ps, v, c.argSpan(1, "phase"), c.span) {
			return poison(c.span)
		}
	}
	return ps
}

func loadScalar(b *ir.Buffer, span source.Span) ir.Expr {
	return &ir.Load{Buf: b, Indices: []ir.Expr{ir.Const(0)}, Span: span}
}

func storeScalar(b *ir.Buffer, v ir.Expr, span source.Span) ir.Stmt {
	return &ir.Store{Buf: b, Indices: []ir.Expr{ir.Const(0)}, Value: v, Span: span}
}

// pipelineStateInit is PipelineState.init(phase): stage = 0, phase = phase.
func (ev *evaluator) pipelineStateInit(ps *PipelineStateV, phase Value, pspan, span source.Span) bool {
	if isErr(phase) {
		ev.needConcrete(phase, pspan, "PipelineState's phase")
		return false
	}
	e, ok := ev.toIR(phase, ir.Int32)
	if !ok {
		ev.errorf(pspan, CodeType, "PipelineState phase must be an integer, got %s", describe(phase))
		return false
	}
	ev.emitStmt(storeScalar(ps.Stage, ir.Const(0), span))
	ev.emitStmt(storeScalar(ps.Phase, e, span))
	return true
}

func (ev *evaluator) pipelineStateAttr(ps *PipelineStateV, name string, span source.Span) Value {
	switch name {
	case "stage":
		return &ExprV{base: base{span}, E: loadScalar(ps.Stage, span), scalar: true}
	case "phase":
		return &ExprV{base: base{span}, E: loadScalar(ps.Phase, span), scalar: true}
	case "depth":
		return &IntV{base{span}, ps.Depth}
	case "init":
		return method("PipelineState.init", func(ev *evaluator, c *call) Value {
			if !ev.requireKernel(c, "PipelineState.init") || !ev.checkArgs(c, "init", 1, "phase") {
				return poison(c.span)
			}
			if !ev.pipelineStateInit(ps, c.args[0], c.argSpans[0], c.span) {
				return poison(c.span)
			}
			return &NoneV{base{c.span}}
		})
	case "advance":
		// advance(): stage += 1, wrapping to 0 with the phase flipped; a
		// ring of depth 1 only flips the phase.
		return method("PipelineState.advance", func(ev *evaluator, c *call) Value {
			if !ev.requireKernel(c, "PipelineState.advance") || !ev.checkArgs(c, "advance", 0) {
				return poison(c.span)
			}
			sp := c.span
			flip := storeScalar(ps.Phase, &ir.Binary{Op: ir.BitXor, A: loadScalar(ps.Phase, sp), B: ir.Const(1), Span: sp}, sp)
			if ps.Depth <= 1 {
				ev.emitStmt(flip)
				return &NoneV{base{sp}}
			}
			ev.emitStmt(storeScalar(ps.Stage, &ir.Binary{Op: ir.Add, A: loadScalar(ps.Stage, sp), B: ir.Const(1), Span: sp}, sp))
			wrap := &ir.Binary{Op: ir.EQ, A: loadScalar(ps.Stage, sp), B: ir.Const(ps.Depth), Span: sp}
			ev.emitStmt(&ir.If{Cond: wrap, Then: &ir.Block{Stmts: []ir.Stmt{storeScalar(ps.Stage, ir.Const(0), sp), flip}, Span: sp}, Span: sp})
			return &NoneV{base{sp}}
		})
	}
	return &OpaqueV{base{span}, "PipelineState." + name}
}

// tcgen05BarArrive is TCGen05Bar.arrive(stage, cta_group=1, cta_mask=None,
// pred=None): the unicast tcgen05.commit to the stage's barrier when the
// mask is absent or a constant naming at most one CTA
// (_tcgen05_commit_is_unicast), under `if pred:` when pred= is given (the
// reference predicates the instruction, the same effect). The multicast
// form is not modelled.
func (ev *evaluator) tcgen05BarArrive(b *BarrierV, c *call) Value {
	var mask ir.Expr // the CTA mask of a multicast commit (lib_pipeline_remote.go)
	if m := c.arg(2, "cta_mask"); m != nil && !isNoneV(m) {
		n, ok := toInt(m)
		if !ok || bits.OnesCount64(uint64(n)) > 1 {
			if mask = ev.tcgen05CommitMask(b, c, m); mask == nil {
				return poison(c.span)
			}
		}
	}
	group := int64(1)
	if g := c.arg(1, "cta_group"); g != nil {
		var ok bool
		if group, ok = ev.intArg(g, c.argSpan(1, "cta_group"), "cta_group"); !ok {
			return poison(c.span)
		}
	}
	sv := c.arg(0, "stage")
	if isErr(sv) {
		return ev.needConcrete(sv, c.argSpan(0, "stage"), b.Class+".arrive's stage")
	}
	stage, ok := ev.toIR(sv, ir.Int32)
	if !ok {
		return ev.errorf(c.argSpan(0, "stage"), CodeType, "%s.arrive stage must be an integer, got %s", b.Class, describe(sv))
	}
	op := fmt.Sprintf("ptx.tcgen05.commit.cta_group::%d.mbarrier::arrive::one.shared::cluster.b64", group)
	args := []ir.Expr{&ir.AddressOf{Buf: b.Buf, Indices: []ir.Expr{stage}, Span: c.span}}
	if mask != nil {
		op = fmt.Sprintf("ptx.tcgen05.commit.cta_group::%d.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64", group)
		args = append(args, mask)
	}
	var st ir.Stmt = &ir.Evaluate{X: &ir.Call{Op: op, Args: args, Span: c.span}, Span: c.span}
	if pv := c.arg(3, "pred"); pv != nil && !isNoneV(pv) {
		if isErr(pv) {
			return ev.needConcrete(pv, c.argSpan(3, "pred"), b.Class+".arrive's pred")
		}
		cond, ok := ev.toIR(pv, ir.BoolT)
		if !ok {
			return ev.errorf(c.argSpan(3, "pred"), CodeType, "%s.arrive pred must be a condition, got %s", b.Class, describe(pv))
		}
		st = &ir.If{Cond: cond, Then: &ir.Block{Stmts: []ir.Stmt{st}, Span: c.span}, Span: c.span}
	}
	ev.emitStmt(st)
	return &NoneV{base{c.span}}
}
