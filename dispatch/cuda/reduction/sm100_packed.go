package reduction

// reduction/sm100_packed: thread-scope float32 register reductions of a
// 1-D src of at least 8 elements into one dst element on SM100+, priority
// 20: `packed_add_sum` for sum (add.rn.ftz.f32x2 pairs) and `3input_maxmin`
// for max and min (the three-input max.f32 / min.f32). Mirrors TVM
// backend/cuda/operator/tile_primitive/reduction/sm100_packed.py
// (0.25.0.post1; 0.26.0 the same).
//
// 0.27.0.post1 writes the same arithmetic as explicit register moves
// (sm100_packed_027.go): each packed add is mov.b64 pack of both pairs
// into two uint64 scratch registers (acc, rhs), add.rn.ftz.f32x2 acc, acc,
// rhs, and mov.b64 unpack back into the pair; the three-input op is a
// statement writing its destination.
//
// packed_add_sum: 8 partial sums (local_sum) start as src[0:8] (the first
// plus dst when accum); each further full chunk of 8 is added pairwise
// with 4 add.f32x2; the remainder (0-7 elements) goes into local_sum[0];
// then 8 -> 4 -> 2 with 3 add.f32x2 and dst = local_sum[0] + local_sum[1].
//
// 3input_maxmin: 4 partials start as op(src[2i], src[2i+1]) (the first
// folding dst in with a 3-input op when accum); each further chunk of 8
// folds two elements into each partial with a 3-input op; the remainder
// goes into partial 0; dst = op3(op(t0, t1), t2, t3).
//
// Predicates (all evaluated): exec_scope (thread), local_scope (both local,
// same dtype, CUDA), dst_len (1), src_ndim (1), dtype (float32),
// sm_version (>= 100), reduction_len (>= 8).

import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// packedPreds is TVM _optimized_local_reduction_predicates.
var packedPreds = []dispatch.Pred{
	{Name: "exec_scope", Check: func(c *dispatch.Call) *dispatch.Decline {
		if c.Scope != "thread" {
			return c.Declinef(common.OpSpan(c), "unsupported exec_scope %s", c.Scope)
		}
		return nil
	}},
	{Name: "local_scope", Check: func(c *dispatch.Call) *dispatch.Decline {
		r := args(c)
		if r.src.Buf.Scope != "local" || r.dst.Buf.Scope != "local" || r.src.Buf.Dtype != r.dst.Buf.Dtype || !c.Target.IsCUDA() {
			return c.Decline(c.Span(), "src/dst must be local scope with matching dtype on CUDA")
		}
		return nil
	}},
	{Name: "dst_len", Check: func(c *dispatch.Call) *dispatch.Decline {
		if n := prod(args(c).dst.Exts); n != 1 {
			return c.Declinef(c.ArgSpan(0), "dst_len %d != 1", n)
		}
		return nil
	}},
	{Name: "src_ndim", Check: func(c *dispatch.Call) *dispatch.Decline {
		if n := len(args(c).src.Exts); n != 1 {
			return c.Declinef(c.ArgSpan(1), "src ndim %d != 1", n)
		}
		return nil
	}},
	{Name: "dtype", Check: func(c *dispatch.Call) *dispatch.Decline {
		if dt := args(c).src.Buf.Dtype; dt != ir.Float32 {
			return c.Declinef(c.ArgSpan(1), "dtype %s != float32", dt)
		}
		return nil
	}},
	{Name: "sm_version", Check: func(c *dispatch.Call) *dispatch.Decline {
		if v := c.Target.SMVersion(); v < 100 {
			return c.Declinef(c.Span(), "sm_version %d < 100", v)
		}
		return nil
	}},
	{Name: "reduction_len", Check: func(c *dispatch.Call) *dispatch.Decline {
		if n := prod(args(c).src.Exts); n < 8 {
			return c.Declinef(c.ArgSpan(1), "reduction_len %d < 8", n)
		}
		return nil
	}},
}

// packedShape is what both emitters read: src's start and length, the
// full chunks of 8 and the remainder.
type packedShape struct {
	base           ir.Expr
	n, chunks, rem int64
}

func packedOf(r *redCall) packedShape {
	n := prod(r.src.Exts)
	return packedShape{base: r.src.Mins[0], n: n, chunks: n / 8, rem: n % 8}
}

// at is src[base + i].
func (p packedShape) at(src *ir.Buffer, i ir.Expr, sp source.Span) ir.Expr {
	return load(src, []ir.Expr{add(i, p.base)}, sp)
}

// emitPackedAddSum is TVM _emit_reduction_local_thread_packed_add_sum.
func emitPackedAddSum(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	r := args(c)
	sp := c.Span()
	dst, src := r.dst.Buf, r.src.Buf
	p := packedOf(r)
	ls := localBuf("local_sum", []int64{8}, src.Dtype, sp)
	cst := common.Cst
	lsAt := func(i int64) ir.Expr { return load(ls, []ir.Expr{cst(i)}, sp) }
	addr := func(i int64) ir.Expr { return &ir.AddressOf{Buf: ls, Indices: []ir.Expr{cst(i)}, Span: sp} }
	f2 := func(x, y ir.Expr) ir.Expr {
		return &ir.Call{Op: ir.OpCudaMakeFloat2, Args: []ir.Expr{x, y}, Type: ir.DataType{Code: ir.UInt, Bits: 64}, Span: sp}
	}
	add2 := func(d, a, b ir.Expr) ir.Stmt {
		return &ir.Evaluate{X: &ir.Call{Op: ir.OpPtxAddF32x2, Args: []ir.Expr{d, a, b,
			&ir.StringImm{Value: "rn", Span: sp}, cst(1), cst(0)}, Span: sp}, Span: sp}
	}
	dstAt := r.dst.Mins
	body := []ir.Stmt{&ir.Alloc{Buf: ls, Span: sp}}
	var pk *pairRegs
	if c.Target.Release >= release.R027 {
		pk = newPairRegs(sp)
		body = append(body, pk.allocs()...)
	}
	// add4 is one packed add of pairs (d0, d1) += (b0, b1), written back to
	// local_sum[2j], local_sum[2j+1]: ptx.add_f32x2 of make_float2s, or from
	// 0.27 the mov.b64 / add.rn.ftz.f32x2 / mov.b64 sequence.
	add4 := func(j int64, a0, a1, b0, b1 ir.Expr) []ir.Stmt {
		if pk != nil {
			return pk.add(load(ls, []ir.Expr{cst(2 * j)}, sp), load(ls, []ir.Expr{cst(2*j + 1)}, sp), a0, a1, b0, b1)
		}
		return []ir.Stmt{add2(addr(2*j), f2(a0, a1), f2(b0, b1))}
	}
	for i := range int64(8) {
		v := p.at(src, cst(i), sp)
		if r.accum && i == 0 {
			v = &ir.Binary{Op: ir.Add, A: v, B: load(dst, dstAt, sp), Span: sp}
		}
		body = append(body, store(ls, []ir.Expr{cst(i)}, v, sp))
	}
	body = append(body, loop("outer", p.chunks-1, ir.Serial, sp, func(outer ir.Expr) []ir.Stmt {
		var out []ir.Stmt
		base := ir.AddE(ir.MulE(outer, cst(8)), cst(8)) // 8 * (outer + 1)
		for j := range int64(4) {
			out = append(out, add4(j, lsAt(2*j), lsAt(2*j+1),
				p.at(src, add(base, cst(2*j)), sp), p.at(src, add(base, cst(2*j+1)), sp))...)
		}
		return out
	})...)
	body = append(body, loop("i", p.rem, ir.Serial, sp, func(i ir.Expr) []ir.Stmt {
		return []ir.Stmt{store(ls, []ir.Expr{cst(0)}, &ir.Binary{Op: ir.Add, A: lsAt(0),
			B: p.at(src, add(i, cst(p.chunks*8)), sp), Span: sp}, sp)}
	})...)
	body = append(body, add4(0, lsAt(0), lsAt(1), lsAt(2), lsAt(3))...)
	body = append(body, add4(2, lsAt(4), lsAt(5), lsAt(6), lsAt(7))...)
	body = append(body, add4(0, lsAt(0), lsAt(1), lsAt(4), lsAt(5))...)
	body = append(body, store(dst, dstAt, &ir.Binary{Op: ir.Add, A: lsAt(0), B: lsAt(1), Span: sp}, sp))
	return &dispatch.Result{
		Body: &ir.Block{Stmts: body, Span: sp}, Threads: 1,
		Plan: []dispatch.PlanItem{
			plan("elements", fmt.Sprint(p.n)),
			plan("partial sums", "8 (local_sum), pairs added by add.rn.ftz.f32x2"),
			plan("chunks of 8", fmt.Sprintf("%d (%d packed adds after the first)", p.chunks, 4*(p.chunks-1))),
			plan("scalar tail", fmt.Sprintf("%d into local_sum[0]", p.rem)),
			plan("final", "3 add.f32x2 (8 -> 4 -> 2), then one scalar add"),
			plan("accum", accumText(r.accum, "dst added to local_sum[0] first")),
		},
	}, nil
}

func accumText(accum bool, how string) string {
	if accum {
		return how
	}
	return "no"
}

// emit3InputMaxMin is TVM _emit_reduction_local_thread_3input_maxmin.
func emit3InputMaxMin(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	r := args(c)
	op := opOf(c)
	sp := c.Span()
	dst, src := r.dst.Buf, r.src.Buf
	p := packedOf(r)
	cst := common.Cst
	tmp := localBuf("temp", []int64{4}, src.Dtype, sp)
	tAt := func(i int64) ir.Expr { return load(tmp, []ir.Expr{cst(i)}, sp) }
	name := ir.OpPtxReduce3MaxF32
	if op == opMin {
		name = ir.OpPtxReduce3MinF32
	}
	r3 := func(a, b, d ir.Expr) ir.Expr {
		return &ir.Call{Op: name, Args: []ir.Expr{a, b, d}, Type: ir.Float32, Span: sp}
	}
	// set3 is buf[idx] = op3(a, b, d): a store of the expression, or from
	// 0.27 the statement T.ptx["max.f32"](buf[idx], a, b, d).
	stmt3 := ir.OpPtxMax3F32
	if op == opMin {
		stmt3 = ir.OpPtxMin3F32
	}
	set3 := func(buf *ir.Buffer, idx []ir.Expr, a, b, d ir.Expr) ir.Stmt {
		if c.Target.Release >= release.R027 {
			return &ir.Evaluate{X: &ir.Call{Op: stmt3, Args: []ir.Expr{load(buf, idx, sp), a, b, d}, Span: sp}, Span: sp}
		}
		return store(buf, idx, r3(a, b, d), sp)
	}
	dstAt := r.dst.Mins
	body := []ir.Stmt{&ir.Alloc{Buf: tmp, Span: sp}}
	for i := range int64(4) {
		a, b := p.at(src, cst(2*i), sp), p.at(src, cst(2*i+1), sp)
		if r.accum && i == 0 {
			body = append(body, set3(tmp, []ir.Expr{cst(i)}, a, b, load(dst, dstAt, sp)))
		} else {
			body = append(body, store(tmp, []ir.Expr{cst(i)}, op.combine(a, b, sp), sp))
		}
	}
	body = append(body, loop("outer", p.chunks-1, ir.Serial, sp, func(outer ir.Expr) []ir.Stmt {
		var out []ir.Stmt
		base := ir.AddE(ir.MulE(outer, cst(8)), cst(8)) // 8 * (outer + 1)
		for i := range int64(4) {
			out = append(out, set3(tmp, []ir.Expr{cst(i)}, tAt(i),
				p.at(src, add(base, cst(2*i)), sp), p.at(src, add(base, cst(2*i+1)), sp)))
		}
		return out
	})...)
	body = append(body, loop("i", p.rem, ir.Serial, sp, func(i ir.Expr) []ir.Stmt {
		return []ir.Stmt{store(tmp, []ir.Expr{cst(0)}, op.combine(tAt(0), p.at(src, add(i, cst(p.chunks*8)), sp), sp), sp)}
	})...)
	body = append(body,
		store(dst, dstAt, op.combine(tAt(0), tAt(1), sp), sp),
		set3(dst, dstAt, load(dst, dstAt, sp), tAt(2), tAt(3)))
	return &dispatch.Result{
		Body: &ir.Block{Stmts: body, Span: sp}, Threads: 1,
		Plan: []dispatch.PlanItem{
			plan("elements", fmt.Sprint(p.n)),
			plan("partials", fmt.Sprintf("4 (temp), folded by the 3-input %s.f32", op)),
			plan("chunks of 8", fmt.Sprintf("%d (%d 3-input ops after the first)", p.chunks, 4*(p.chunks-1))),
			plan("scalar tail", fmt.Sprintf("%d into temp[0]", p.rem)),
			plan("final", fmt.Sprintf("dst = %s3(%s(temp[0], temp[1]), temp[2], temp[3])", op, op)),
			plan("accum", accumText(r.accum, "dst folded into temp[0] by a 3-input op")),
		},
	}, nil
}

// packedVariants is TVM's loop over (sum, max, min) with
// _optimized_impl_table.
func packedVariants() []dispatch.Variant {
	var out []dispatch.Variant
	for _, op := range []string{"sum", "max", "min"} {
		v := dispatch.Variant{Op: op, Target: "cuda", Priority: 20, When: packedPreds}
		if op == "sum" {
			v.Name, v.Emit = "packed_add_sum", emitPackedAddSum
		} else {
			v.Name, v.Emit = "3input_maxmin", emit3InputMaxMin
		}
		out = append(out, v)
	}
	return out
}
