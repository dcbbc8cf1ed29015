package reduction

import (
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// pairRegs are 0.27.0.post1's two uint64 scratch registers of a packed
// f32x2 add (sm100_packed.py: acc = T.local_scalar("uint64"), rhs = ...).
type pairRegs struct {
	acc, rhs *ir.Buffer
	sp       source.Span
}

func newPairRegs(sp source.Span) *pairRegs {
	u64 := ir.DataType{Code: ir.UInt, Bits: 64}
	return &pairRegs{acc: localBuf("acc", []int64{1}, u64, sp), rhs: localBuf("rhs", []int64{1}, u64, sp), sp: sp}
}

func (p *pairRegs) allocs() []ir.Stmt {
	return []ir.Stmt{&ir.Alloc{Buf: p.acc, Span: p.sp}, &ir.Alloc{Buf: p.rhs, Span: p.sp}}
}

// add is (d0, d1) = (a0 + b0, a1 + b1) as 0.27 writes it: mov.b64 acc,
// {a0, a1}; mov.b64 rhs, {b0, b1}; add.rn.ftz.f32x2 acc, acc, rhs;
// mov.b64 {d0, d1}, acc.
func (p *pairRegs) add(d0, d1, a0, a1, b0, b1 ir.Expr) []ir.Stmt {
	sp := p.sp
	zero := []ir.Expr{&ir.IntImm{Value: 0, Type: ir.Int32, Span: sp}}
	acc, rhs := load(p.acc, zero, sp), load(p.rhs, zero, sp)
	ev := func(op string, args ...ir.Expr) ir.Stmt {
		return &ir.Evaluate{X: &ir.Call{Op: op, Args: args, Span: sp}, Span: sp}
	}
	return []ir.Stmt{
		ev(ir.OpPtxMovB64, acc, a0, a1),
		ev(ir.OpPtxMovB64, rhs, b0, b1),
		ev("ptx.add.rn.ftz.f32x2", acc, acc, rhs),
		ev(ir.OpPtxMovB64, d0, d1, acc),
	}
}
