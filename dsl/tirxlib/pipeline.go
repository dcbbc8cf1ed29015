package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

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
	eval.Base
	Class string
	Buf   *ir.Buffer
	Depth int64
	// PhaseOffset is XORed into the phase of every wait (phase_offset=).
	PhaseOffset int64
	// Leader is the leader= predicate of the thread that runs init; nil
	// is the default, thread rank 0.
	Leader ir.Expr
	// RemoteOf is the local barrier of a remote_view (Buf is then the
	// mapped view); nil for a local barrier. pipeline_remote.go.
	RemoteOf *BarrierV
}

func (v *BarrierV) TypeName() string { return v.Class }

func pipelineAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "MBarrier", "TMABar", "TCGen05Bar":
		return eval.Builtin(name, func(ev *eval.Evaluator, c *eval.Call) eval.Value { return newBarrier(ev, name, c) }), true
	case "Pipeline":
		return eval.Builtin(name, newPipeline), true
	case "PipelineState":
		return eval.Builtin(name, newPipelineState), true
	}
	return nil, false
}

// newBarrier is MBarrier(pool, depth, phase_offset=0, leader=None).
func newBarrier(ev *eval.Evaluator, class string, c *eval.Call) eval.Value {
	if len(c.Args) < 2 {
		return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: class + "(...)"}
	}
	pool, ok := c.Args[0].(*eval.PoolV)
	if !ok {
		if eval.IsErr(c.Args[0]) {
			return c.Args[0]
		}
		return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: class + "(...)"}
	}
	depth, ok := ev.IntArg(c.Args[1], c.ArgSpans[1], class+" depth")
	if !ok {
		return eval.Poison(c.At)
	}
	alloc := &eval.Call{At: c.At, FnSpan: c.FnSpan, Fr: c.Fr, Node: c.Node,
		Args:     []eval.Value{&eval.TupleV{Base: eval.Base{At: c.ArgSpans[1]}, Elts: []eval.Value{&eval.IntV{Base: eval.Base{At: c.ArgSpans[1]}, V: depth}}}, &eval.StrV{Base: eval.Base{At: c.At}, V: "uint64"}},
		ArgSpans: []source.Span{c.ArgSpans[1], c.At},
		Kwargs:   []eval.Kwarg{{Name: "align", V: &eval.IntV{Base: eval.Base{At: c.At}, V: 8}, At: c.At, Vspan: c.At}}}
	b, ok := PoolAlloc(ev, pool, alloc).(*eval.BufferV)
	if !ok {
		return eval.Poison(c.At)
	}
	bv := &BarrierV{Base: eval.Base{At: c.At}, Class: class, Buf: b.B, Depth: depth}
	if v := c.Arg(2, "phase_offset"); v != nil {
		if bv.PhaseOffset, ok = ev.IntArg(v, c.ArgSpan(2, "phase_offset"), class+" phase_offset"); !ok {
			return eval.Poison(c.At)
		}
	}
	if v := c.Arg(3, "leader"); v != nil && !eval.IsNoneV(v) {
		if eval.IsErr(v) {
			return ev.NeedConcrete(v, c.ArgSpan(3, "leader"), class+"'s leader")
		}
		e, ok := ev.ToIR(v, ir.BoolT)
		if !ok {
			return ev.Errorf(c.ArgSpan(3, "leader"), eval.CodeType, "%s leader must be a condition, got %s", class, eval.Describe(v))
		}
		bv.Leader = e
	}
	return bv
}

// leaderCond is the barrier's leader predicate: its leader=, or the
// thread of rank 0 (T.cuda.thread_rank() == 0 in the reference; tilels'
// leader is threadIdx.x == 0, the same thread in the 1-D blocks it
// models).
func (b *BarrierV) leaderCond(span source.Span) ir.Expr {
	if b.Leader != nil {
		return b.Leader
	}
	return &ir.Binary{Op: ir.EQ, A: &ir.ThreadIndex{Axis: "tx", Span: span}, B: ir.Const(0), Span: span}
}

func barrierAttr(ev *eval.Evaluator, b *BarrierV, name string, span source.Span) eval.Value {
	switch name {
	case "ptr_to":
		return ev.BufferAttr(&eval.BufferV{Base: eval.Base{At: span}, B: b.Buf}, "ptr_to", span)
	case "buf":
		return &eval.BufferV{Base: eval.Base{At: span}, B: b.Buf}
	case "depth":
		return &eval.IntV{Base: eval.Base{At: span}, V: b.Depth}
	case "leader":
		// the leader= predicate, or the thread of rank 0 (as init's)
		return &eval.ExprV{Base: eval.Base{At: span}, E: b.leaderCond(span)}
	case "init", "wait", "arrive":
		if b.RemoteOf != nil {
			return eval.Method(b.Class+"."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value { return remoteViewCall(ev, b, name, c) })
		}
		return eval.Method(b.Class+"."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value { return barrierCall(ev, b, name, c) })
	case "remote_view": // pipeline_remote.go
		return eval.Method(b.Class+".remote_view", func(ev *eval.Evaluator, c *eval.Call) eval.Value { return barrierRemoteView(ev, b, c) })
	}
	return &eval.OpaqueV{Base: eval.Base{At: span}, Path: b.Class + "." + name}
}

// barrierCall emits MBarrier.init(count), .wait(stage, phase) and
// .arrive(stage) as tvm.tirx.lang.pipeline defines them (T.inline
// methods): init has the leader thread (thread rank 0; tilels' leader is
// threadIdx.x == 0, the same thread in the 1-D blocks it models) set up
// every stage, wait spins on the stage's phase, arrive arrives on the
// local CTA's barrier. A remote arrive (cta_id=) is not modelled.
func barrierCall(ev *eval.Evaluator, b *BarrierV, name string, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, b.Class+"."+name) {
		return eval.Poison(c.At)
	}
	ptr := func(stage ir.Expr) ir.Expr {
		return &ir.AddressOf{Buf: b.Buf, Indices: []ir.Expr{stage}, Span: c.At}
	}
	stmt := func(op string, args ...ir.Expr) ir.Stmt {
		return &ir.Evaluate{X: &ir.Call{Op: op, Args: args, Span: c.At}, Span: c.At}
	}
	arg := func(i int, pname string) (ir.Expr, bool) {
		v := c.Arg(i, pname)
		if v == nil {
			ev.Errorf(c.At, eval.CodeType, "%s.%s() missing required argument '%s'", b.Class, name, pname)
			return nil, false
		}
		if eval.IsErr(v) {
			ev.NeedConcrete(v, c.ArgSpan(i, pname), b.Class+"."+name+"'s "+pname)
			return nil, false
		}
		e, ok := ev.ToIR(v, ir.Int32)
		if !ok {
			ev.Errorf(c.ArgSpan(i, pname), eval.CodeType, "%s.%s %s must be an integer, got %s", b.Class, name, pname, eval.Describe(v))
		}
		return e, ok
	}
	switch name {
	case "init":
		if !ev.CheckArgs(c, b.Class+".init", 1, "count") {
			return eval.Poison(c.At)
		}
		count, ok := arg(0, "count")
		if !ok {
			return eval.Poison(c.At)
		}
		then := &ir.Block{Span: c.At}
		for i := int64(0); i < b.Depth; i++ {
			then.Stmts = append(then.Stmts, stmt(ir.OpMbarrierInit, ptr(ir.Const(i)), count))
		}
		ev.EmitStmt(&ir.If{Cond: b.leaderCond(c.At), Then: then, Span: c.At})
	case "wait":
		if !ev.CheckArgs(c, b.Class+".wait", 2, "stage", "phase") {
			return eval.Poison(c.At)
		}
		stage, ok1 := arg(0, "stage")
		phase, ok2 := arg(1, "phase")
		if !ok1 || !ok2 {
			return eval.Poison(c.At)
		}
		if b.PhaseOffset != 0 {
			phase = ir.Bin(ir.BitXor, phase, ir.Const(b.PhaseOffset))
		}
		ev.EmitStmt(stmt(ir.OpMbarrierTryWait, ptr(stage), phase))
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
		if !ev.CheckArgs(c, b.Class+".arrive", 1, params...) {
			return eval.Poison(c.At)
		}
		if b.Class == "TCGen05Bar" {
			return tcgen05BarArrive(ev, b, c)
		}
		if r := remoteArriveArg(b, c); r != nil {
			return barrierArriveRemote(ev, b, c, r) // pipeline_remote.go
		}
		if b.Class == "TMABar" {
			if tx := c.Arg(1, "tx_count"); tx != nil && !eval.IsNoneV(tx) {
				if r := c.Arg(4, "remote"); r == nil || eval.IsNoneV(r) {
					// _arrive_tma_local: mbarrier.arrive.expect_tx on the
					// local barrier (pred= applies to remote arrives only).
					stage, ok1 := arg(0, "stage")
					n, ok2 := arg(1, "tx_count")
					if !ok1 || !ok2 {
						return eval.Poison(c.At)
					}
					ev.EmitStmt(stmt(ir.OpMbarrierArriveExpect, ptr(stage), n))
					return &eval.NoneV{Base: eval.Base{At: c.At}}
				}
			}
		}
		for i, p := range params[1:] {
			if v := c.Arg(i+1, p); v != nil && !eval.IsNoneV(v) && p != "pred" && p != "count" {
				what := "a remote arrive"
				switch p {
				case "tx_count":
					what = "mbarrier.arrive.expect_tx"
				}
				ev.Warnf(c.At, eval.CodeUnresolved, "%s.arrive with %s= (%s) is not modelled by tilels; statement ignored", b.Class, p, what)
				return &eval.NoneV{Base: eval.Base{At: c.At}}
			}
		}
		stage, ok := arg(0, "stage")
		if !ok {
			return eval.Poison(c.At)
		}
		ev.EmitStmt(stmt(ir.OpMbarrierArrive, ptr(stage)))
	}
	return &eval.NoneV{Base: eval.Base{At: c.At}}
}

// PipelineV is a Pipeline: its full and empty barriers.
type PipelineV struct {
	eval.Base
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
func newPipeline(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if len(c.Args) > 2 {
		return ev.PyErrorf(c.At, "Pipeline.__init__() takes 3 positional arguments but %d were given", len(c.Args)+1)
	}
	if !ev.CheckArgs(c, "Pipeline", 2, "pool", "stages", "full", "empty", "init_full", "init_empty", "empty_phase_offset", "leader") {
		return eval.Poison(c.At)
	}
	if _, ok := c.Args[0].(*eval.PoolV); !ok {
		if eval.IsErr(c.Args[0]) {
			return c.Args[0]
		}
		return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "Pipeline(...)"}
	}
	stages, ok := ev.IntArg(c.Args[1], c.ArgSpans[1], "Pipeline stages")
	if !ok {
		return eval.Poison(c.At)
	}
	p := &PipelineV{Base: eval.Base{At: c.At}, Stages: stages}
	for i, side := range []string{"full", "empty"} {
		v := c.Arg(2+i, side)
		if v == nil {
			return ev.PyErrorf(c.At, "Pipeline.__init__() missing 1 required keyword-only argument: '%s'", side)
		}
		tag, ok := ev.StrArg(v, c.ArgSpan(2+i, side), side)
		if !ok {
			return eval.Poison(c.At)
		}
		class, known := barKinds[tag]
		if !known {
			return ev.PyErrorf(c.ArgSpan(2+i, side), "KeyError: %s", eval.PyQuote(tag))
		}
		args := []eval.Value{c.Args[0], c.Args[1]}
		spans := []source.Span{c.ArgSpans[0], c.ArgSpans[1]}
		off := c.Arg(6, "empty_phase_offset")
		if off == nil || side == "full" {
			off = &eval.IntV{Base: eval.Base{At: c.At}, V: 0}
		}
		args, spans = append(args, off), append(spans, c.ArgSpan(6, "empty_phase_offset"))
		if l := c.Arg(7, "leader"); l != nil {
			args, spans = append(args, l), append(spans, c.ArgSpan(7, "leader"))
		}
		b, ok := newBarrier(ev, class, &eval.Call{At: c.At, FnSpan: c.FnSpan, Fr: c.Fr, Args: args, ArgSpans: spans}).(*BarrierV)
		if !ok {
			return eval.Poison(c.At)
		}
		var count eval.Value = &eval.IntV{Base: eval.Base{At: c.At}, V: 1}
		if n := c.Arg(4+i, "init_"+side); n != nil {
			count = n
		}
		barrierCall(ev, b, "init", &eval.Call{At: c.At, FnSpan: c.FnSpan, Fr: c.Fr, Args: []eval.Value{count}, ArgSpans: []source.Span{c.ArgSpan(4+i, "init_"+side)}})
		if side == "full" {
			p.Full = b
		} else {
			p.Empty = b
		}
	}
	return p
}

func pipelineObjAttr(ev *eval.Evaluator, p *PipelineV, name string, span source.Span) eval.Value {
	switch name {
	case "full":
		return p.Full
	case "empty":
		return p.Empty
	case "stages":
		return &eval.IntV{Base: eval.Base{At: span}, V: p.Stages}
	}
	return &eval.OpaqueV{Base: eval.Base{At: span}, Path: "Pipeline." + name}
}

// PipelineStateV is a PipelineState: the ring's depth and the local int32
// scalars holding its stage and phase.
type PipelineStateV struct {
	eval.Base
	Depth        int64
	Stage, Phase *ir.Buffer
}

func (*PipelineStateV) TypeName() string { return "PipelineState" }

// newPipelineState is PipelineState(depth, phase=None): two
// T.local_scalar("int32") (stage, phase), initialised when phase is given.
func newPipelineState(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "PipelineState") || !ev.CheckArgs(c, "PipelineState", 1, "depth", "phase") {
		return eval.Poison(c.At)
	}
	depth, ok := ev.IntArg(c.Args[0], c.ArgSpans[0], "PipelineState depth")
	if !ok {
		return eval.Poison(c.At)
	}
	name, _ := ev.HintName(c, "pipe")
	scalar := func(field string) *ir.Buffer {
		b := &ir.Buffer{Name: name + "_" + field, Shape: []int64{1}, Dtype: ir.Int32, Scope: "local", Kind: ir.AllocBuffer, Span: c.At,
			Layout: layout.NewTile([]layout.Iter{layout.It(1, 1, layout.M)}, nil, nil)}
		b.Data = &ir.Var{Name: b.Name, Type: ir.HandleT, Span: c.At}
		ev.AddBufferSite(b, source.NoSpan, c.At, source.NoSpan)
		ev.EmitStmt(&ir.Alloc{Buf: b, Span: c.At})
		return b
	}
	ps := &PipelineStateV{Base: eval.Base{At: c.At}, Depth: depth, Stage: scalar("stage"), Phase: scalar("phase")}
	if v := c.Arg(1, "phase"); v != nil && !eval.IsNoneV(v) {
		if !pipelineStateInit(ev, ps, v, c.ArgSpan(1, "phase"), c.At) {
			return eval.Poison(c.At)
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
func pipelineStateInit(ev *eval.Evaluator, ps *PipelineStateV, phase eval.Value, pspan, span source.Span) bool {
	if eval.IsErr(phase) {
		ev.NeedConcrete(phase, pspan, "PipelineState's phase")
		return false
	}
	e, ok := ev.ToIR(phase, ir.Int32)
	if !ok {
		ev.Errorf(pspan, eval.CodeType, "PipelineState phase must be an integer, got %s", eval.Describe(phase))
		return false
	}
	ev.EmitStmt(storeScalar(ps.Stage, ir.Const(0), span))
	ev.EmitStmt(storeScalar(ps.Phase, e, span))
	return true
}

func pipelineStateAttr(ev *eval.Evaluator, ps *PipelineStateV, name string, span source.Span) eval.Value {
	switch name {
	case "stage":
		return &eval.ExprV{Base: eval.Base{At: span}, E: loadScalar(ps.Stage, span), Scalar: true}
	case "phase":
		return &eval.ExprV{Base: eval.Base{At: span}, E: loadScalar(ps.Phase, span), Scalar: true}
	case "depth":
		return &eval.IntV{Base: eval.Base{At: span}, V: ps.Depth}
	case "init":
		return eval.Method("PipelineState.init", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.RequireKernel(c, "PipelineState.init") || !ev.CheckArgs(c, "init", 1, "phase") {
				return eval.Poison(c.At)
			}
			if !pipelineStateInit(ev, ps, c.Args[0], c.ArgSpans[0], c.At) {
				return eval.Poison(c.At)
			}
			return &eval.NoneV{Base: eval.Base{At: c.At}}
		})
	case "advance":
		// advance(): stage += 1, wrapping to 0 with the phase flipped; a
		// ring of depth 1 only flips the phase.
		return eval.Method("PipelineState.advance", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.RequireKernel(c, "PipelineState.advance") || !ev.CheckArgs(c, "advance", 0) {
				return eval.Poison(c.At)
			}
			sp := c.At
			flip := storeScalar(ps.Phase, &ir.Binary{Op: ir.BitXor, A: loadScalar(ps.Phase, sp), B: ir.Const(1), Span: sp}, sp)
			if ps.Depth <= 1 {
				ev.EmitStmt(flip)
				return &eval.NoneV{Base: eval.Base{At: sp}}
			}
			ev.EmitStmt(storeScalar(ps.Stage, &ir.Binary{Op: ir.Add, A: loadScalar(ps.Stage, sp), B: ir.Const(1), Span: sp}, sp))
			wrap := &ir.Binary{Op: ir.EQ, A: loadScalar(ps.Stage, sp), B: ir.Const(ps.Depth), Span: sp}
			ev.EmitStmt(&ir.If{Cond: wrap, Then: &ir.Block{Stmts: []ir.Stmt{storeScalar(ps.Stage, ir.Const(0), sp), flip}, Span: sp}, Span: sp})
			return &eval.NoneV{Base: eval.Base{At: sp}}
		})
	}
	return &eval.OpaqueV{Base: eval.Base{At: span}, Path: "PipelineState." + name}
}

// tcgen05BarArrive is TCGen05Bar.arrive(stage, cta_group=1, cta_mask=None,
// pred=None): the unicast tcgen05.commit to the stage's barrier when the
// mask is absent or a constant naming at most one CTA
// (_tcgen05_commit_is_unicast), under `if pred:` when pred= is given (the
// reference predicates the instruction, the same effect). The multicast
// form is not modelled.
func tcgen05BarArrive(ev *eval.Evaluator, b *BarrierV, c *eval.Call) eval.Value {
	var mask ir.Expr // the CTA mask of a multicast commit (pipeline_remote.go)
	if m := c.Arg(2, "cta_mask"); m != nil && !eval.IsNoneV(m) {
		n, ok := eval.ToInt(m)
		if !ok || bits.OnesCount64(uint64(n)) > 1 {
			if mask = tcgen05CommitMask(ev, b, c, m); mask == nil {
				return eval.Poison(c.At)
			}
		}
	}
	group := int64(1)
	if g := c.Arg(1, "cta_group"); g != nil {
		var ok bool
		if group, ok = ev.IntArg(g, c.ArgSpan(1, "cta_group"), "cta_group"); !ok {
			return eval.Poison(c.At)
		}
	}
	sv := c.Arg(0, "stage")
	if eval.IsErr(sv) {
		return ev.NeedConcrete(sv, c.ArgSpan(0, "stage"), b.Class+".arrive's stage")
	}
	stage, ok := ev.ToIR(sv, ir.Int32)
	if !ok {
		return ev.Errorf(c.ArgSpan(0, "stage"), eval.CodeType, "%s.arrive stage must be an integer, got %s", b.Class, eval.Describe(sv))
	}
	op := fmt.Sprintf("ptx.tcgen05.commit.cta_group::%d.mbarrier::arrive::one.shared::cluster.b64", group)
	args := []ir.Expr{&ir.AddressOf{Buf: b.Buf, Indices: []ir.Expr{stage}, Span: c.At}}
	if mask != nil {
		op = fmt.Sprintf("ptx.tcgen05.commit.cta_group::%d.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64", group)
		args = append(args, mask)
	}
	var st ir.Stmt = &ir.Evaluate{X: &ir.Call{Op: op, Args: args, Span: c.At}, Span: c.At}
	if pv := c.Arg(3, "pred"); pv != nil && !eval.IsNoneV(pv) {
		if eval.IsErr(pv) {
			return ev.NeedConcrete(pv, c.ArgSpan(3, "pred"), b.Class+".arrive's pred")
		}
		cond, ok := ev.ToIR(pv, ir.BoolT)
		if !ok {
			return ev.Errorf(c.ArgSpan(3, "pred"), eval.CodeType, "%s.arrive pred must be a condition, got %s", b.Class, eval.Describe(pv))
		}
		st = &ir.If{Cond: cond, Then: &ir.Block{Stmts: []ir.Stmt{st}, Span: c.At}, Span: c.At}
	}
	ev.EmitStmt(st)
	return &eval.NoneV{Base: eval.Base{At: c.At}}
}

// LibAttr implements eval.AttrValue.
func (b *BarrierV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	return barrierAttr(ev, b, name, span)
}

// LibAttr implements eval.AttrValue.
func (p *PipelineV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	return pipelineObjAttr(ev, p, name, span)
}

// LibAttr implements eval.AttrValue.
func (ps *PipelineStateV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	return pipelineStateAttr(ev, ps, name, span)
}
