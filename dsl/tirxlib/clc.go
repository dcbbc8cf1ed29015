package tirxlib

import (
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The cluster launch control handshake of ClusterLaunchControlScheduler
// (tvm/backend/cuda/lang/tile_scheduler.py) and the response decoding it
// calls (tvm/backend/cuda/lang/clc.py's query_cancel_first_ctaid_x), as
// their T.inline bodies emit them. The scheduler warp of CTA 0 asks the
// hardware to cancel a cluster not launched yet (try_cancel, multicast to
// both CTAs' 16-byte response); every role waits for the response, reads
// it, decodes the cancelled cluster's first CTA index (0xFFFFFFFF when
// none) and releases the slot on CTA 0's finished barrier.

const clcPath = "tvm.backend.cuda.lang.clc"

// clcAttr is the clc module: query_cancel_first_ctaid_x(first_ctaid_x,
// handle, *, use_ld_acquire=True), a T.inline function.
func clcAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if name != "query_cancel_first_ctaid_x" {
		return nil, false
	}
	full := "query_cancel_first_ctaid_x"
	return eval.Builtin(full, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
		if !ev.RequireKernel(c, full+"()") || !ev.CheckArgs(c, full, 2, "first_ctaid_x", "handle", "use_ld_acquire") {
			return eval.Poison(c.At)
		}
		for _, a := range c.Args {
			if eval.IsErr(a) {
				return a
			}
		}
		acquire := true
		if v := c.Arg(2, "use_ld_acquire"); v != nil {
			acquire = eval.Truthy(v)
		}
		s := &sched{ev: ev, span: c.At}
		s.queryFirstCtaidX(c.Args[0], c.Args[1], acquire)
		return none(c)
	}), true
}

// clcRunScheduler is run_scheduler(cbx).
func (s *sched) clcRunScheduler(cbx eval.Value) {
	sp := s.span
	elect := &ir.Call{Op: ir.OpElectSync, Type: ir.Int32, Span: sp}
	s.ev.EmitStmt(&ir.If{Cond: elect, Then: s.block(func() {
		sa := s.namedState("sa", 0)
		sf := s.namedState("sf", 1)
		s.set("_s_done", s.int(0))
		done := s.cmp("==", s.get("_s_done"), s.int(0))
		cond, ok := s.ev.ToIR(done, ir.BoolT)
		if !ok {
			return
		}
		s.ev.EmitStmt(&ir.While{Cond: cond, Body: s.block(func() {
			s.when(s.cmp("==", cbx, s.int(0)), func() {
				s.method(s.attr(s.get("sched_fin"), "empty"), "wait", s.int(0), s.attr(sf, "phase"))
				s.method(sf, "advance")
				s.intrinsic("ptx.clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128",
					s.addressOf(s.get("clc_handle")), s.addressOf(s.attr(s.attr(s.get("sched_arr"), "full"), "buf")))
			}, nil)
			full := s.attr(s.get("sched_arr"), "full")
			s.method(full, "arrive", s.int(0), s.int(16)) // expect_bytes for the 16-byte handle
			s.method(full, "wait", s.int(0), s.attr(sa, "phase"))
			s.method(sa, "advance")
			s.queryFirstCtaidX(s.get("_s_nxt"), s.addressOf(s.get("clc_handle")), true)
			s.releaseSlot(s)
			s.when(s.cmp("==", s.get("_s_nxt"), s.int(0xFFFFFFFF)), func() { s.set("_s_done", s.int(1)) }, nil)
		}), Span: sp})
	}), Span: sp})
}

// clcConsume is _CLCWorker.consume() (wg nil: one elected thread) or
// consume_wg(wg_id, warp_id, lane_id) (the warpgroup decodes; lane 0 of
// its warp 0 releases the slot).
func (s *sched) clcConsume(wg []eval.Value) {
	clc := &sched{ev: s.ev, self: asInstance(s.get("_clc")), span: s.span}
	if clc.self == nil {
		return
	}
	sa := s.get("_sa")
	s.method(s.attr(clc.get("sched_arr"), "full"), "wait", s.int(0), s.attr(sa, "phase"))
	s.method(sa, "advance")
	s.queryFirstCtaidX(s.get("_nxt"), s.addressOf(clc.get("clc_handle")), true)
	if wg == nil {
		clc.releaseSlot(s)
		return
	}
	s.intrinsic(ir.OpWarpgroupSync, s.op("+", wg[0], s.int(1)))
	s.when(s.op("&", s.cmp("==", wg[1], s.int(0)), s.cmp("==", wg[2], s.int(0))), func() { clc.releaseSlot(s) }, nil)
}

// releaseSlot is self.sched_fin.empty.arrive(0, remote=0, pred=True) on
// the scheduler s (at emits' span).
func (s *sched) releaseSlot(at *sched) {
	empty := s.attr(s.get("sched_fin"), "empty")
	f := s.ev.GetAttr(empty, "arrive", at.span, at.span)
	s.ev.CallValue(f, &eval.Call{At: at.span, FnSpan: at.span, Args: []eval.Value{s.int(0)}, ArgSpans: []source.Span{at.span},
		Kwargs: []eval.Kwarg{{Name: "remote", V: s.int(0), At: at.span, Vspan: at.span},
			{Name: "pred", V: &eval.BoolV{Base: eval.Base{At: at.span}, V: true}, At: at.span, Vspan: at.span}}})
}

// queryFirstCtaidX is query_cancel_first_ctaid_x(first, handle,
// use_ld_acquire=acquire): load the response at address handle
// (ld.acquire.cta, else a plain ld), test it, seed first with the
// sentinel and extract the x index under the test, then order the read
// before the next try_cancel's async-proxy write (fence.proxy.async).
func (s *sched) queryFirstCtaidX(first, handle eval.Value, acquire bool) {
	if eval.IsErr(handle) {
		return
	}
	if _, ok := s.ev.ToIR(handle, ir.DataType{}); !ok {
		s.ev.Warnf(s.span, eval.CodeUnresolved, "not modelled: query_cancel_first_ctaid_x with the handle %s (an address of the 16-byte response); statement ignored", eval.Describe(handle))
		return
	}
	response := s.localScalar("response", ir.DataType{Code: ir.UInt, Bits: 128})
	canceled := s.localScalar("canceled", ir.UInt32)
	ld := "ptx.ld.shared.b128"
	if acquire {
		ld = "ptx.ld.acquire.cta.shared.b128"
	}
	s.intrinsic(ld, response, handle)
	s.intrinsic("ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", canceled, response)
	if !s.ev.StoreScalar(first, &eval.ExprV{Base: eval.Base{At: s.span}, E: &ir.IntImm{Value: 0xFFFFFFFF, Type: ir.UInt32, Span: s.span}}, s.span, s.span) {
		return
	}
	s.intrinsic("ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128", first, response, canceled)
	s.intrinsic("ptx.fence.proxy.async_.shared__cta")
}

// localScalar is `name = T.local_scalar(dtype)` in a T.inline body.
func (s *sched) localScalar(name string, dt ir.DataType) eval.Value {
	buf := &ir.Buffer{Name: name, Shape: []int64{1}, Dtype: dt, Scope: "local", Kind: ir.AllocBuffer, Span: s.span,
		Layout: layout.NewTile([]layout.Iter{layout.It(1, 1, layout.M)}, nil, nil)}
	buf.Data = &ir.Var{Name: name, Type: ir.HandleT, Span: s.span}
	s.ev.EmitStmt(&ir.Alloc{Buf: buf, Span: s.span})
	s.ev.AddBufferSite(buf, source.NoSpan, s.span, source.NoSpan)
	return eval.ScalarOf(&eval.BufferV{Base: eval.Base{At: s.span}, B: buf}, s.span)
}

// namedState is `name = PipelineState(1, phase)`.
func (s *sched) namedState(name string, phase int64) *PipelineStateV {
	scalar := func(field string) *ir.Buffer {
		b := &ir.Buffer{Name: name + "_" + field, Shape: []int64{1}, Dtype: ir.Int32, Scope: "local", Kind: ir.AllocBuffer, Span: s.span,
			Layout: layout.NewTile([]layout.Iter{layout.It(1, 1, layout.M)}, nil, nil)}
		b.Data = &ir.Var{Name: b.Name, Type: ir.HandleT, Span: s.span}
		s.ev.AddBufferSite(b, source.NoSpan, s.span, source.NoSpan)
		s.ev.EmitStmt(&ir.Alloc{Buf: b, Span: s.span})
		return b
	}
	ps := &PipelineStateV{Base: eval.Base{At: s.span}, Depth: 1, Stage: scalar("stage"), Phase: scalar("phase")}
	pipelineStateInit(s.ev, ps, s.int(phase), s.span, s.span)
	return ps
}

// attr is obj.name.
func (s *sched) attr(obj eval.Value, name string) eval.Value {
	return s.ev.GetAttr(obj, name, s.span, s.span)
}

// method calls obj.name(args...).
func (s *sched) method(obj eval.Value, name string, args ...eval.Value) eval.Value {
	spans := make([]source.Span, len(args))
	for i := range spans {
		spans[i] = s.span
	}
	return s.ev.CallValue(s.attr(obj, name), &eval.Call{At: s.span, FnSpan: s.span, Args: args, ArgSpans: spans})
}

// intrinsic emits T.<op>(args...) as a statement, the call the evaluator
// makes of it (eval.IntrinsicCall) without the release check of a user's
// spelling: the library's own code is its release's.
func (s *sched) intrinsic(op string, args ...eval.Value) {
	es := make([]ir.Expr, len(args))
	for i, a := range args {
		e, ok := s.ev.ToIR(a, ir.DataType{})
		if !ok {
			if !eval.IsErr(a) {
				s.ev.Warnf(s.span, eval.CodeUnresolved, "not modelled: T.%s's operand %d, %s; statement ignored", op, i, eval.Describe(a))
			}
			return
		}
		es[i] = e
	}
	t := ir.DataType{}
	if op == ir.OpElectSync {
		t = ir.Int32
	}
	s.ev.EmitStmt(&ir.Evaluate{X: &ir.Call{Op: op, Args: es, Type: t, Span: s.span}, Span: s.span})
}

// addressOf is T.address_of(buf[0]).
func (s *sched) addressOf(buf eval.Value) eval.Value {
	b, ok := buf.(*eval.BufferV)
	if !ok {
		if eval.IsErr(buf) {
			return buf
		}
		return s.ev.Errorf(s.span, eval.CodeType, "the CLC response handle must be a shared buffer, got %s", eval.Describe(buf))
	}
	return &eval.ExprV{Base: eval.Base{At: s.span}, E: &ir.AddressOf{Buf: b.B, Indices: []ir.Expr{ir.Const(0)}, Span: s.span}}
}

// block is the statements f emits, as a block.
func (s *sched) block(f func()) *ir.Block {
	saved := s.ev.Emit
	var stmts []ir.Stmt
	s.ev.Emit = &stmts
	f()
	s.ev.Emit = saved
	return &ir.Block{Stmts: stmts, Span: s.span}
}
