package copy

// copy/fallback: scalar copy by one elected thread (spec §4.2).
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy/
// fallback.py (PRE abe2526b3e = SEED). Priority 0: reached only when every
// faster variant rejected or declined, or when forced with
// dispatch="fallback". Accepts any scope and memory pair that passes
// validate_copy_op.
//
// Emits T.grid-style nested serial loops over the non-unit extents with a
// scalar Store of a Load (a single store for one-element regions). At
// warp/warpgroup/cta scope the body runs under `if tid == first`, first
// being the first active thread of the (possibly narrowed) scope; at
// thread scope it is unguarded. At cluster scope TVM raises
// KeyError: 'cluster' (no thread axis for the scope), reproduced here as
// an exception row. TVM's UserWarning ("copy/fallback (scalar
// single-thread) picked for ...") becomes a Result note; the dispatch pass
// reports a dispatch/fallback-only warning.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

var Fallback = dispatch.Variant{
	Op: "copy", Name: "fallback", Target: "cuda", Priority: 0,
	When: []dispatch.Pred{{Name: "validate_copy_op", Check: common.IsValidCopy}},
	Emit: emitFallback,
}

func emitFallback(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	src, dst := c.Src(), c.Dst()
	span := c.Span()
	note := fmt.Sprintf("copy/fallback (scalar single-thread) picked for %s -> %s at scope_kind=%s; all faster variants rejected.",
		src.Buf.Scope, dst.Buf.Scope, c.Scope)

	body := fallbackBody(dst, src, span)
	res := &dispatch.Result{Vec: 1, VecBits: int64(src.Buf.Dtype.Bits), Outer: 1, Threads: 1, Notes: []string{note}}
	for _, e := range dst.Extent {
		if v, ok := ir.ConstInt(e); ok {
			res.Outer *= v
		}
	}
	if c.Scope == "thread" {
		res.Body = &ir.Block{Stmts: body, Span: span}
		return res, nil
	}
	axis, ok := common.TidAxisForScope[c.Scope]
	if !ok {
		dispatch.Raise("KeyError", "%s", common.PyRepr(c.Scope))
	}
	first := intraOffset(c, "laneid")
	switch c.Scope {
	case "warpgroup":
		first += 32 * intraOffset(c, "wid_in_wg")
	case "cta":
		first += 32 * intraOffset(c, "warpid")
	}
	cond := &ir.Binary{Op: ir.EQ, A: c.AxisDecl(axis), B: common.Cst(first), Span: span}
	res.Body = &ir.Block{Stmts: []ir.Stmt{&ir.If{Cond: cond, Then: &ir.Block{Stmts: body, Span: span}, Span: span}}, Span: span}
	res.Partition = fmt.Sprintf("%s == %d", axis, first)
	return res, nil
}

// intraOffset is int(sctx.intra[name][1]) with TVM's failure modes.
func intraOffset(c *dispatch.Call, name string) int64 {
	r, ok := c.Intra[name]
	if !ok {
		dispatch.Raise("KeyError", "%s", common.PyRepr(name))
	}
	if !r.Static() {
		dispatch.Raise("TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'Call'")
	}
	return r.Offset
}

// fallbackBody is TVM _copy_body: a scalar copy over T.grid(extents).
func fallbackBody(dst, src *ir.Region, span source.Span) []ir.Stmt {
	dIdx, sIdx := NonUnitDims(dst), NonUnitDims(src)
	if len(dIdx) != len(sIdx) {
		dispatch.Raise("AssertionError", "")
	}
	vars := make([]*ir.Var, len(dIdx))
	for k := range vars {
		vars[k] = &ir.Var{Name: fmt.Sprintf("v_%d", k), Type: ir.Int32, Span: span}
	}
	coord := func(r *ir.Region, idx []int) []ir.Expr {
		out := make([]ir.Expr, len(r.Extent))
		for d := range out {
			if d < len(r.Min) && r.Min[d] != nil {
				out[d] = r.Min[d]
			} else {
				out[d] = common.Cst(0)
			}
		}
		for k, d := range idx {
			out[d] = ir.AddE(out[d], vars[k])
		}
		return out
	}
	var stmt ir.Stmt = &ir.Store{Buf: dst.Buf, Indices: coord(dst, dIdx),
		Value: &ir.Load{Buf: src.Buf, Indices: coord(src, sIdx), Span: span}, Span: span}
	for k := len(dIdx) - 1; k >= 0; k-- {
		stmt = &ir.For{Var: vars[k], Min: common.Cst(0), Extent: dst.Extent[dIdx[k]], Kind: ir.Serial,
			Body: &ir.Block{Stmts: []ir.Stmt{stmt}, Span: span}, Span: span}
	}
	return []ir.Stmt{stmt}
}

func NonUnitDims(r *ir.Region) []int {
	var out []int
	for d, e := range r.Extent {
		if v, ok := ir.ConstInt(e); ok && v == 1 {
			continue
		}
		out = append(out, d)
	}
	return out
}
