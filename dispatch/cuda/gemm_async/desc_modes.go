package gemmasync

// The shared-memory matrix descriptors of a tcgen05 gemm_async and where
// they are built: tcgen05.py's smem_desc modes (0.26 and later; 0.25 has
// only the first).
//
//   - "hoist" (the default, and any value that is not one of the others):
//     each operand's descriptor is encoded once, right after its shared
//     buffer's definition (sctx.add_post_buffer_def_stmt), and every MMA
//     adds its 16-byte offset to the low word. At warp scope the low word
//     is then made the value of lane 0 with a full-mask shuffle (0.25 does
//     it at thread scope too): 0.25 and 0.26 through their
//     smem_desc_make_lo_uniform_ helper, 0.27 as mov.b64 {lo, hi}, desc;
//     shfl.sync.idx.b32; mov.b64 desc, {lo, hi}. B's descriptor is made
//     before A's (the two groups land after their own buffers).
//   - "local_hoist": both encoded at the start of the call (B's first,
//     named descB_local and descA_local), no shuffle; offsets as above.
//   - "recompute": no encoding; every MMA builds its descriptor from the
//     shared address: (sdo | 1 << 14 | layout << 29) << 32 | (ldo << 16) |
//     (cvta(&buf[0] + offset * 16 B) >> 4 & 0x3FFF).
//   - "encode" (dense MMAs only): every MMA encodes its two descriptors at
//     the operand's address plus its offset, B's first, next to the MMA
//     (inside its elect.sync at warp scope).
//
// An A operand in tensor memory has no descriptor in any mode.

import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

const (
	modeHoist      = "hoist"
	modeLocalHoist = "local_hoist"
	modeRecompute  = "recompute"
	modeEncode     = "encode"
)

// descMode is the call's smem_desc mode: the config's string from 0.26,
// "hoist" otherwise (0.25 has no modes and ignores the key).
func (g *gemm) descMode() string {
	if !g.newer() {
		return modeHoist
	}
	if v, ok := g.c.Config("smem_desc"); ok {
		if s, isS := v.(*ir.StringImm); isS {
			switch s.Value {
			case modeLocalHoist, modeRecompute, modeEncode:
				return s.Value
			}
		}
	}
	return modeHoist
}

// descs is how the MMAs of one call get their descriptors.
type descs struct {
	mode         string
	descA, descB *ir.Buffer // the cells of "hoist" and "local_hoist"
	// pre are the call's own statements before its MMAs ("local_hoist"),
	// post the groups placed after the buffers' definitions ("hoist").
	pre  []ir.Stmt
	post []dispatch.PostDef
}

// setupDescs builds the descriptor cells of the call's mode.
func (g *gemm) setupDescs(span source.Span) descs {
	d := descs{mode: g.descMode()}
	switch d.mode {
	case modeHoist:
		var st []ir.Stmt
		d.descB, st = g.hoistedDesc("descB", g.B.Buf, g.bP, span)
		d.post = append(d.post, dispatch.PostDef{Buf: g.B.Buf, Stmts: st})
		if !g.aTmem {
			d.descA, st = g.hoistedDesc("descA", g.A.Buf, g.aP, span)
			d.post = append(d.post, dispatch.PostDef{Buf: g.A.Buf, Stmts: st})
		}
	case modeLocalHoist:
		var st []ir.Stmt
		d.descB, st = encodeDesc("descB_local", g.B.Buf, g.bP, span)
		d.pre = append(d.pre, st...)
		if !g.aTmem {
			d.descA, st = encodeDesc("descA_local", g.A.Buf, g.aP, span)
			d.pre = append(d.pre, st...)
		}
	}
	return d
}

// hoistedDesc is _make_desc: the cell, its encoding at the buffer's origin
// and, where the release makes it, the low word's shuffle.
func (g *gemm) hoistedDesc(name string, buf *ir.Buffer, p smemParams, span source.Span) (*ir.Buffer, []ir.Stmt) {
	cell, st := encodeDesc(name, buf, p, span)
	rel := g.c.Target.Release
	if !g.warp && rel >= release.R026 {
		return cell, st
	}
	if rel < release.R027 {
		return cell, append(st, eval(call(ir.OpSmemDescLoUniform, ir.DataType{}, span, cellAddr(cell, span)), span))
	}
	lo, hi := localCell(name+"_lo", u32, span), localCell(name+"_hi", u32, span)
	u := func(v int64) ir.Expr { return &ir.IntImm{Value: v, Type: u32, Span: span} }
	return cell, append(st,
		&ir.Alloc{Buf: lo, Span: span}, &ir.Alloc{Buf: hi, Span: span},
		eval(call(ir.OpPtxMovB64, ir.DataType{}, span, cellLoad(lo, span), cellLoad(hi, span), cellLoad(cell, span)), span),
		eval(call(ir.OpPtxShflSyncIdxB32, ir.DataType{}, span, cellLoad(lo, span), cellLoad(lo, span), u(0), u(0x1F), u(0xFFFFFFFF)), span),
		eval(call(ir.OpPtxMovB64, ir.DataType{}, span, cellLoad(cell, span), cellLoad(lo, span), cellLoad(hi, span)), span))
}

// operand is one MMA's descriptor of buf at the 16-byte offset off, and the
// statements that must run before the MMA ("encode").
func (d *descs) operand(cell, buf *ir.Buffer, p smemParams, off ir.Expr, span source.Span) (ir.Expr, []ir.Stmt) {
	switch d.mode {
	case modeRecompute:
		return uniformDesc(buf, p, off, span), nil
	case modeEncode:
		c := localCell("desc", u64, span)
		at := call("handle_add_byte_offset", ir.HandleT, span, origin(buf, span), bytesOf(off))
		enc := call(ir.OpTcgen05EncodeMatrixDesc, ir.DataType{}, span, cellAddr(c, span), at,
			common.Cst(p.ldo), common.Cst(p.sdo), common.Cst(p.swizzle))
		return cellLoad(c, span), []ir.Stmt{&ir.Alloc{Buf: c, Span: span}, eval(enc, span)}
	}
	return call(ir.OpSmemDescAdd16B, u64, span, cellLoad(cell, span), off), nil
}

// swizzleLayoutType is the descriptor's layout field of a swizzle mode
// (tcgen05.py _SWIZZLE_TO_LAYOUT).
var swizzleLayoutType = map[int64]int64{0: 0, 1: 6, 2: 4, 3: 2, 4: 1}

// uniformDesc is _uniform_desc: the descriptor of buf's origin moved by off
// 16-byte units, built from the shared address without an encoder.
func uniformDesc(buf *ir.Buffer, p smemParams, off ir.Expr, span source.Span) ir.Expr {
	hi := (p.sdo & 0x3FFF) | 1<<14 | swizzleLayoutType[p.swizzle]<<29
	loConst := (p.ldo & 0x3FFF) << 16
	u := func(v int64, t ir.DataType) ir.Expr { return &ir.IntImm{Value: v, Type: t, Span: span} }
	addr := call("ptr_byte_offset", ir.HandleT, span, origin(buf, span), bytesOf(off),
		&ir.StringImm{Value: buf.Dtype.String(), Span: span})
	sa := &ir.Binary{Op: ir.BitAnd, A: &ir.Binary{Op: ir.Shr, A: call("cuda.cvta_generic_to_shared", u32, span, addr),
		B: u(4, u32), Span: span}, B: u(0x3FFF, u32), Span: span}
	var lo ir.Expr = sa
	if loConst != 0 {
		lo = &ir.Binary{Op: ir.BitOr, A: u(loConst, u32), B: sa, Span: span}
	}
	return &ir.Binary{Op: ir.BitOr, A: &ir.Binary{Op: ir.Shl, A: u(hi, u64), B: u(32, u64), Span: span},
		B: &ir.Cast{To: u64, X: lo, Span: span}, Span: span}
}

// bytesOf is the byte count of off 16-byte units, the constant factors
// folded as the reference's simplifier folds them (k * 1024 * 16 is
// k * 16384).
func bytesOf(off ir.Expr) ir.Expr {
	switch e := off.(type) {
	case *ir.IntImm:
		return common.Cst(e.Value * 16)
	case *ir.Binary:
		switch e.Op {
		case ir.Add:
			return ir.AddE(bytesOf(e.A), bytesOf(e.B))
		case ir.Mul:
			if c, ok := ir.ConstInt(e.B); ok {
				return ir.MulE(e.A, common.Cst(c*16))
			}
			if c, ok := ir.ConstInt(e.A); ok {
				return ir.MulE(common.Cst(c*16), e.B)
			}
		}
	}
	return ir.MulE(off, common.Cst(16))
}

// origin is &buf[0, ..., 0].
func origin(buf *ir.Buffer, span source.Span) ir.Expr {
	idx := make([]ir.Expr, len(buf.Shape))
	for i := range idx {
		idx[i] = common.Cst(0)
	}
	return &ir.AddressOf{Buf: buf, Indices: idx, Span: span}
}

// descPlan says in the plan where the descriptors are built.
func (g *gemm) descPlan() dispatch.PlanItem {
	ops := "B's"
	if !g.aTmem {
		ops = "A's and B's"
	}
	var v string
	switch d := g.descMode(); d {
	case modeHoist:
		where := g.B.Buf.Name
		if !g.aTmem && g.A.Buf != g.B.Buf {
			where = g.A.Buf.Name + " and " + where
		}
		v = fmt.Sprintf("%s encoded once, right after the declaration of %s; each MMA adds its 16-byte offset", ops, where)
		if g.warp || !g.newer() {
			v += "; the low word is then made lane 0's with a warp shuffle"
		}
	case modeLocalHoist:
		v = ops + " encoded at this call, before its MMAs; each MMA adds its 16-byte offset"
	case modeRecompute:
		v = ops + " rebuilt for every MMA from the shared address (cvta, no encoder)"
	case modeEncode:
		v = ops + " encoded for every MMA at the operand's address"
	}
	if g.newer() {
		v = fmt.Sprintf("smem_desc=%q: %s", g.descMode(), v)
	}
	return dispatch.PlanItem{Key: "smem descriptors", Value: v}
}
