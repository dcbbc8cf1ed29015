package eval

import (
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
func remoteArriveArg(b *BarrierV, c *call) Value {
	pos := 1 // MBarrier.arrive(stage, cta_id/remote, ...)
	if b.Class == "TMABar" {
		pos = 2 // TMABar.arrive(stage, tx_count, cta_id/remote, ...)
	}
	for _, v := range []Value{c.arg(-1, "remote"), c.arg(pos, "cta_id")} {
		if v != nil && !isNoneV(v) {
			return v
		}
	}
	return nil
}

// barrierArriveRemote emits the remote arrive on b at CTA rank remote.
func (ev *evaluator) barrierArriveRemote(b *BarrierV, c *call, remote Value) Value {
	what := b.Class + ".arrive"
	expr := func(v Value, name string, t ir.DataType) (ir.Expr, bool) {
		if isErr(v) {
			ev.needConcrete(v, v.Span(), what+"'s "+name)
			return nil, false
		}
		e, ok := ev.toIR(v, t)
		if !ok {
			ev.errorf(v.Span(), CodeType, "%s %s must be an integer, got %s", what, name, describe(v))
			return nil, false
		}
		if t.IsValid() && t != ir.BoolT && exprType(e) != t {
			e = &ir.Cast{To: t, X: e, Span: v.Span()}
		}
		return e, true
	}
	sv := c.arg(0, "stage")
	if sv == nil {
		return ev.errorf(c.span, CodeType, "%s() missing required argument 'stage'", what)
	}
	stage, ok := expr(sv, "stage", ir.Int32)
	if !ok {
		return poison(c.span)
	}
	rank, ok := expr(remote, "remote", ir.UInt32)
	if !ok {
		return poison(c.span)
	}
	sp := c.span
	mapped := &ir.Buffer{Name: "remote_mbar_addr", Shape: []int64{1}, Dtype: ir.UInt32, Scope: "local", Kind: ir.AllocBuffer, Span: sp}
	mapped.Data = &ir.Var{Name: mapped.Name, Type: ir.HandleT, Span: sp}
	ev.emitStmt(&ir.Alloc{Buf: mapped, Span: sp})
	slot := func() ir.Expr { return &ir.Load{Buf: mapped, Indices: []ir.Expr{ir.Const(0)}, Span: sp} }
	local := &ir.AddressOf{Buf: b.Buf, Indices: []ir.Expr{stage}, Span: sp}
	toShared := &ir.Call{Op: "cuda.cvta_generic_to_shared", Args: []ir.Expr{local}, Type: ir.UInt32, Span: sp}
	ev.emitStmt(ptxStmt("ptx.mapa.shared::cluster.u32", sp, slot(), toShared, rank))

	op, args := "ptx.mbarrier.arrive.shared::cluster.b64", []ir.Expr{slot()}
	predPos, countPos := 2, 3 // MBarrier.arrive(stage, remote, pred, count)
	if b.Class == "TMABar" {
		predPos, countPos = 3, -1
		if tx := c.arg(1, "tx_count"); tx != nil && !isNoneV(tx) {
			n, ok := expr(tx, "tx_count", ir.UInt32)
			if !ok {
				return poison(sp)
			}
			op, args = "ptx.mbarrier.arrive.expect_tx.shared::cluster.b64", append(args, n)
		}
	}
	if countPos >= 0 {
		if cv := c.arg(countPos, "count"); cv != nil && !isNoneV(cv) {
			n, ok := expr(cv, "count", ir.UInt32)
			if !ok {
				return poison(sp)
			}
			args = append(args, n)
		}
	}
	var st ir.Stmt = ptxStmt(op, sp, args...)
	if pv := c.arg(predPos, "pred"); pv != nil && !isNoneV(pv) {
		cond, ok := expr(pv, "pred", ir.BoolT)
		if !ok {
			return poison(sp)
		}
		if n, isConst := ir.ConstInt(cond); isConst {
			if n == 0 {
				return &NoneV{base{sp}}
			}
		} else {
			st = &ir.If{Cond: cond, Then: &ir.Block{Stmts: []ir.Stmt{st}, Span: sp}, Span: sp}
		}
	}
	ev.emitStmt(st)
	return &NoneV{base{sp}}
}
