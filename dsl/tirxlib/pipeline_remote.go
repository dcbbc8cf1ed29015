package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// The remote arrives of tvm/backend/cuda/lang/pipeline.py (0.26+; the
// older cta_id= spelling means the same): MBarrier.arrive(stage,
// remote=r, pred=, count=) and TMABar.arrive(stage, tx_count=, remote=r,
// pred=) arrive on the barrier of CTA r of the cluster. As the reference's
// _map_addr_into_cta does, the local barrier's shared-window address is
// mapped into CTA r (a uint32 scratch register written by
// mapa.shared::cluster.u32), then
//
//	mbarrier.arrive.shared::cluster.b64 _, [addr]{, count}
//	mbarrier.arrive.expect_tx.shared::cluster.b64 _, [addr], tx_count
//
// arrives on it; pred= guards the arrive only (not the mapa). tilels
// writes the predicate as a branch around the arrive, as it does for
// TCGen05Bar.arrive(pred=) (the reference predicates the instruction).

// remoteArriveArg returns the remote= (or older cta_id=) argument of a
// MBarrier/TMABar arrive, nil when it is a local arrive.
func remoteArriveArg(b *BarrierV, c *eval.Call) eval.Value {
	pos := 1 // MBarrier.arrive(stage, cta_id/remote, ...)
	if b.Class == "TMABar" {
		pos = 2 // TMABar.arrive(stage, tx_count, cta_id/remote, ...)
	}
	for _, v := range []eval.Value{c.Arg(-1, "remote"), c.Arg(pos, "cta_id")} {
		if v != nil && !eval.IsNoneV(v) {
			return v
		}
	}
	return nil
}

// barrierArriveRemote emits the remote arrive on b at CTA rank remote.
func barrierArriveRemote(ev *eval.Evaluator, b *BarrierV, c *eval.Call, remote eval.Value) eval.Value {
	if eval.IsErr(remote) {
		return ev.NeedConcrete(remote, remote.Span(), b.Class+".arrive's remote")
	}
	rank, ok := ev.ToIR(remote, ir.UInt32)
	if !ok {
		return ev.Errorf(remote.Span(), eval.CodeType, "%s.arrive remote must be an integer, got %s", b.Class, eval.Describe(remote))
	}
	if eval.ExprType(rank) != ir.UInt32 {
		rank = &ir.Cast{To: ir.UInt32, X: rank, Span: remote.Span()}
	}
	return barrierArriveAt(ev, b, c, func(stage ir.Expr) ir.Expr {
		sp := c.At
		mapped := &ir.Buffer{Name: "remote_mbar_addr", Shape: []int64{1}, Dtype: ir.UInt32, Scope: "local", Kind: ir.AllocBuffer, Span: sp}
		mapped.Data = &ir.Var{Name: mapped.Name, Type: ir.HandleT, Span: sp}
		ev.EmitStmt(&ir.Alloc{Buf: mapped, Span: sp})
		slot := func() ir.Expr { return &ir.Load{Buf: mapped, Indices: []ir.Expr{ir.Const(0)}, Span: sp} }
		local := &ir.AddressOf{Buf: b.Buf, Indices: []ir.Expr{stage}, Span: sp}
		toShared := &ir.Call{Op: "cuda.cvta_generic_to_shared", Args: []ir.Expr{local}, Type: ir.UInt32, Span: sp}
		ev.EmitStmt(ptxStmt("ptx.mapa.shared::cluster.u32", sp, slot(), toShared, rank))
		return slot()
	})
}

// barrierArriveAt emits the cluster arrive of b.arrive(c) on the address
// addr(stage) (which emits what computes it).
func barrierArriveAt(ev *eval.Evaluator, b *BarrierV, c *eval.Call, addr func(stage ir.Expr) ir.Expr) eval.Value {
	what := b.Class + ".arrive"
	sp := c.At
	expr := func(v eval.Value, name string, t ir.DataType) (ir.Expr, bool) {
		if eval.IsErr(v) {
			ev.NeedConcrete(v, v.Span(), what+"'s "+name)
			return nil, false
		}
		e, ok := ev.ToIR(v, t)
		if !ok {
			ev.Errorf(v.Span(), eval.CodeType, "%s %s must be an integer, got %s", what, name, eval.Describe(v))
			return nil, false
		}
		if t != ir.BoolT && eval.ExprType(e) != t {
			e = &ir.Cast{To: t, X: e, Span: v.Span()}
		}
		return e, true
	}
	sv := c.Arg(0, "stage")
	if sv == nil {
		return ev.Errorf(sp, eval.CodeType, "%s() missing required argument 'stage'", what)
	}
	stage, ok := expr(sv, "stage", ir.Int32)
	if !ok {
		return eval.Poison(sp)
	}
	var count, tx, cond ir.Expr
	predPos, countPos := 2, 3 // MBarrier.arrive(stage, remote, pred, count)
	if b.Class == "TMABar" {
		predPos, countPos = 3, -1
		if v := c.Arg(1, "tx_count"); v != nil && !eval.IsNoneV(v) {
			if tx, ok = expr(v, "tx_count", ir.UInt32); !ok {
				return eval.Poison(sp)
			}
		}
	}
	if countPos >= 0 {
		if v := c.Arg(countPos, "count"); v != nil && !eval.IsNoneV(v) {
			if count, ok = expr(v, "count", ir.UInt32); !ok {
				return eval.Poison(sp)
			}
		}
	}
	if v := c.Arg(predPos, "pred"); v != nil && !eval.IsNoneV(v) {
		if cond, ok = expr(v, "pred", ir.BoolT); !ok {
			return eval.Poison(sp)
		}
	}
	a := addr(stage)
	op, args := "ptx.mbarrier.arrive.shared::cluster.b64", []ir.Expr{a}
	switch {
	case tx != nil:
		op, args = "ptx.mbarrier.arrive.expect_tx.shared::cluster.b64", append(args, tx)
	case count != nil:
		args = append(args, count)
	}
	var st ir.Stmt = ptxStmt(op, sp, args...)
	if cond != nil {
		if n, isConst := ir.ConstInt(cond); isConst {
			if n == 0 {
				return &eval.NoneV{Base: eval.Base{At: sp}}
			}
		} else {
			st = &ir.If{Cond: cond, Then: &ir.Block{Stmts: []ir.Stmt{st}, Span: sp}, Span: sp}
		}
	}
	ev.EmitStmt(st)
	return &eval.NoneV{Base: eval.Base{At: sp}}
}

// MBarrier.remote_view(rank) (pipeline.py 0.26+): the barrier as CTA rank
// of the cluster sees it. As _map_buffer_into_cta does, the address of
// stage 0 is mapped with mapa.u64 into a uint64 scratch register, bound
// as a shared pointer (remote_mbar_ptr, T.Bind of a T.reinterpret) and a
// [depth] uint64 shared buffer declared on it. The view's ptr_to(stage)
// is a remote barrier address a TMA copy's mbar= can complete on (the
// cta_group=2 loads of a CTA pair signal the leader CTA's barrier); its
// arrive is the cluster arrive without a second mapa; init and wait are
// the reference's ValueErrors.

// barrierRemoteView is b.remote_view(rank).
func barrierRemoteView(ev *eval.Evaluator, b *BarrierV, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, b.Class+".remote_view") || !ev.CheckArgs(c, "remote_view", 1, "rank") {
		return eval.Poison(c.At)
	}
	if b.RemoteOf != nil {
		return ev.Errorf(c.At, eval.CodeType, "MBarrier.remote_view() cannot be applied to a remote view")
	}
	sp := c.At
	rv := c.Args[0]
	if eval.IsErr(rv) {
		return ev.NeedConcrete(rv, c.ArgSpans[0], b.Class+".remote_view's rank")
	}
	rank, ok := ev.ToIR(rv, ir.UInt32)
	if !ok {
		return ev.Errorf(c.ArgSpans[0], eval.CodeType, "%s.remote_view rank must be an integer, got %s", b.Class, eval.Describe(rv))
	}
	if eval.ExprType(rank) != ir.UInt32 {
		rank = &ir.Cast{To: ir.UInt32, X: rank, Span: c.ArgSpans[0]}
	}
	mapped := &ir.Buffer{Name: "remote_mbar_u64", Shape: []int64{1}, Dtype: ir.DataType{Code: ir.UInt, Bits: 64}, Scope: "local", Kind: ir.AllocBuffer, Span: sp}
	mapped.Data = &ir.Var{Name: mapped.Name, Type: ir.HandleT, Span: sp}
	ev.EmitStmt(&ir.Alloc{Buf: mapped, Span: sp})
	slot := func() ir.Expr { return &ir.Load{Buf: mapped, Indices: []ir.Expr{ir.Const(0)}, Span: sp} }
	ev.EmitStmt(ptxStmt("ptx.mapa.u64", sp, slot(), &ir.AddressOf{Buf: b.Buf, Indices: []ir.Expr{ir.Const(0)}, Span: sp}, rank))
	ptr := &ir.Var{Name: "remote_mbar_ptr", Type: ir.HandleT, Span: sp}
	ev.EmitStmt(&ir.Let{Var: ptr, Value: &ir.Call{Op: "reinterpret", Args: []ir.Expr{slot()}, Type: ir.HandleT, Span: sp}, Span: sp})
	nb := &ir.Buffer{Name: "remote_mbar", Data: ptr, Shape: []int64{b.Depth}, Dtype: ir.DataType{Code: ir.UInt, Bits: 64}, Scope: "shared",
		Layout: layout.RowMajor(b.Depth), Kind: ir.DeclBuffer, Span: sp}
	ev.EmitStmt(&ir.Decl{Buf: nb, Span: sp})
	out := *b
	out.Base = eval.Base{At: sp}
	out.Buf, out.RemoteOf = nb, b
	return &out
}

// remoteViewCall is init/wait/arrive on a remote view.
func remoteViewCall(ev *eval.Evaluator, b *BarrierV, name string, c *eval.Call) eval.Value {
	switch name {
	case "init":
		return ev.Errorf(c.At, eval.CodeType, "MBarrier.remote_view() cannot be initialized")
	case "wait":
		return ev.Errorf(c.At, eval.CodeType, "MBarrier.remote_view() cannot be waited on")
	}
	if remoteArriveArg(b, c) != nil {
		return ev.Errorf(c.At, eval.CodeType, "%s.remote_view().arrive() cannot also specify remote", b.Class)
	}
	return barrierArriveAt(ev, b, c, func(stage ir.Expr) ir.Expr {
		return &ir.AddressOf{Buf: b.Buf, Indices: []ir.Expr{stage}, Span: c.At}
	})
}

// tcgen05CommitMask is the mask operand of TCGen05Bar.arrive(stage,
// cta_group, cta_mask) when the commit multicasts (pipeline.py
// _tcgen05_commit_is_unicast: a constant mask of two or more CTAs, or any
// runtime mask): T.Cast("uint16", cta_mask). nil when the mask is not an
// integer (reported).
func tcgen05CommitMask(ev *eval.Evaluator, b *BarrierV, c *eval.Call, m eval.Value) ir.Expr {
	if eval.IsErr(m) {
		ev.NeedConcrete(m, c.ArgSpan(2, "cta_mask"), b.Class+".arrive's cta_mask")
		return nil
	}
	e, ok := ev.ToIR(m, ir.Int32)
	if !ok {
		ev.Errorf(c.ArgSpan(2, "cta_mask"), eval.CodeType, "%s.arrive cta_mask must be an integer, got %s", b.Class, eval.Describe(m))
		return nil
	}
	u16 := ir.DataType{Code: ir.UInt, Bits: 16}
	if n, isConst := ir.ConstInt(e); isConst {
		return &ir.IntImm{Value: n & 0xffff, Type: u16, Span: m.Span()}
	}
	return &ir.Cast{To: u16, X: e, Span: m.Span()}
}
