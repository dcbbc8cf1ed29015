package copy

// copy/vec_16b .. vec_256b: one fixed-width vector transfer, only when
// `dispatch=` names the width (spec §3.5, SEED).
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy/
// vec_forced.py at SEED 981cdce66b (PRE has no forced widths; tilels adds
// them because the seed tests use them). Priority 20, ExplicitOnly: the
// predicate {variant}_applicable (_is_forced_vec_copy) rejects every call
// whose dispatch= is not this variant ("requires explicit
// dispatch='vec_64b'"), a non-thread scope, scope pairs outside the
// default six, mismatched dtypes, widths that are not a whole number of
// elements, regions that do not hold exactly width/elem elements, and bad
// cache config (cache ∉ {None, 'nc'}; cache/L1/L2 hints on a non-global
// source).
//
// Emits one T.cuda.copy_bytes(dst, src, N) between the element addresses of
// the two region starts (through the buffers' layouts, swizzle included).
// cache="nc" and the L1/L2 hints are recorded as notes: the seed copy
// helper has no cache-qualified form.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

func VecForced(name string, numBytes int64) dispatch.Variant {
	// Every copy without dispatch= is rejected here five times (once per
	// width): the message is built once, not per call (fmt.Sprintf and
	// pyRepr for it were 5% of BenchmarkDispatch3000 allocations).
	notForced := fmt.Sprintf("requires explicit dispatch=%s", common.PyRepr(name))
	return dispatch.Variant{
		Op: "copy", Name: name, Target: "cuda", Priority: 20, ExplicitOnly: true, Releases: release.From(release.R026),
		When: []dispatch.Pred{{Name: name + "_applicable", Check: func(c *dispatch.Call) *dispatch.Decline {
			if c.Tile.Dispatch != name {
				return c.Decline(c.Span(), notForced)
			}
			return isForcedVecCopy(c, name, numBytes)
		}}},
		Emit: func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) { return emitForcedVec(c, numBytes) },
	}
}

var ldCacheHintKeys = []string{"l1_evict", "l2_evict", "prefetch_size"}

var defaultScopes = common.ScopeAllowed(common.DefaultPairs)

// configString is str(op_call.config.get(key)); ok is false when absent.
func configString(c *dispatch.Call, key string) (string, bool) {
	v, ok := c.Config(key)
	if !ok || v == nil {
		return "", false
	}
	if s, ok := v.(*ir.StringImm); ok {
		return s.Value, true
	}
	return dispatch.ExprText(v), true
}

func regionElements(r *ir.Region) (int64, bool) {
	n, _, ok := common.ProdExprs(r.Extent)
	return n, ok
}

func isForcedVecCopy(c *dispatch.Call, variant string, numBytes int64) *dispatch.Decline {
	if c.Tile.Dispatch != variant {
		return c.Declinef(c.Span(), "requires explicit dispatch=%s", common.PyRepr(variant))
	}
	if c.Scope != "thread" {
		return c.Declinef(common.OpSpan(c), "expected thread exec_scope, got %s", c.Scope)
	}
	if d := defaultScopes(c); d != nil {
		return d
	}
	src, dst := c.Src(), c.Dst()
	if src.Buf.Dtype != dst.Buf.Dtype {
		return c.Declinef(c.ArgSpan(1), "dtype mismatch: src=%s, dst=%s", src.Buf.Dtype, dst.Buf.Dtype)
	}
	elemBits := int64(src.Buf.Dtype.Bits)
	width := numBytes * 8
	if width%elemBits != 0 {
		return c.Declinef(c.Span(), "%s is not an integral number of %s elements", variant, src.Buf.Dtype)
	}
	want := width / elemBits
	if n, ok := regionElements(src); !ok || n != want {
		return c.Declinef(c.ArgSpan(1), "src region does not contain exactly %d elements", want)
	}
	if n, ok := regionElements(dst); !ok || n != want {
		return c.Declinef(c.ArgSpan(0), "dst region does not contain exactly %d elements", want)
	}
	cache, hasCache := configString(c, "cache")
	hints := false
	for _, k := range ldCacheHintKeys {
		if v, ok := configString(c, k); ok && v != "" {
			hints = true
		}
	}
	if hasCache && cache != "nc" {
		return c.Declinef(c.ConfigSpan("cache"), "unsupported cache config %s; expected None or 'nc'", common.PyRepr(cache))
	}
	if (hasCache || hints) && src.Buf.Scope != "global" {
		return c.Declinef(c.ArgSpan(1), "cache/L1/L2 hint config applies to global loads; requires src scope 'global', got %s", common.PyRepr(src.Buf.Scope))
	}
	return nil
}

// StartOffset is startOffset, for copy_async/ldgsts's direct=True.
func StartOffset(r *ir.Region) ir.Expr { return startOffset(r) }

// startOffset is the element offset of the region's first element in the
// buffer's storage: buf.ptr_to(region.min) through the layout (memory axis
// only), swizzled for a ComposeLayout.
func startOffset(r *ir.Region) ir.Expr {
	l, shape, _ := common.RegionLayout(r) // the region's extents are static here
	tile := layout.ToTile(l)
	if cl, ok := l.(*layout.ComposeLayout); ok && layout.IsTrivial(cl.Tile) && layout.Size(cl.Tile, nil) != r.Buf.NumElements() {
		tile = layout.RowMajor(r.Buf.Shape...)
	}
	mins := make([]ir.Expr, len(shape))
	for d := range mins {
		mins[d] = common.Cst(0)
		if d < len(r.Min) && r.Min[d] != nil {
			mins[d] = r.Min[d]
		}
	}
	off := common.ApplyExpr(tile, mins, shape)
	if sw := layout.BareSwizzle(l); sw != nil {
		off = common.SwizzleExpr(sw, off)
	}
	return off
}

func emitForcedVec(c *dispatch.Call, numBytes int64) (*dispatch.Result, *dispatch.Decline) {
	src, dst := c.Src(), c.Dst()
	span := c.Span()
	elemBits := int64(src.Buf.Dtype.Bits)
	form := copyPtxForm(numBytes)
	containerBits := numBytes * 8 / int64(form.lanes)
	cache, _, hints := ldCacheConfig(c)
	hints.nc = cache == "nc"
	stChain := "st." + ptxSpace(dst.Buf.Scope) + "." + form.tail
	ldChain := ldChain(ptxSpace(src.Buf.Scope), form.tail, hints)
	srcPtr := func() ir.Expr { return common.PtrOff(src.Buf, startOffset(src), span) }
	dstPtr := func() ir.Expr { return common.PtrOff(dst.Buf, startOffset(dst), span) }
	var stmts []ir.Stmt
	switch {
	case src.Buf.Scope == "local":
		view, regs := wordsOf(src, form, elemBits, containerBits, span)
		stmts = append(declOf(view, span), ptxSt(stChain, dstPtr(), regs, span))
	case dst.Buf.Scope == "local":
		view, regs := wordsOf(dst, form, elemBits, containerBits, span)
		stmts = append(declOf(view, span), ptxLd(ldChain, regs, srcPtr(), span))
	default:
		tmp, regs := localTmp("tmp", form, span)
		stmts = append(stmts, &ir.Alloc{Buf: tmp, Span: span}, ptxLd(ldChain, regs, srcPtr(), span), ptxSt(stChain, dstPtr(), regs, span))
	}
	res := &dispatch.Result{
		Body: &ir.Block{Stmts: stmts, Span: span},
		Vec:  numBytes * 8 / elemBits, VecBits: numBytes * 8, Outer: 1, Threads: 1,
		Partition: fmt.Sprintf("one %d-byte transfer", numBytes),
	}
	if hints.nc {
		res.Notes = append(res.Notes, "cache='nc' (ld.global.nc)")
	}
	return res, nil
}

// wordsOf is vec_forced's _words: the container registers a local
// region's elements land in. The region start is the row-major index over
// the buffer's shape, scaled to a container index.
func wordsOf(r *ir.Region, form ptxForm, elemBits, containerBits int64, span source.Span) (*ir.Buffer, []ir.Expr) {
	var start ir.Expr = common.Cst(0)
	stride := int64(1)
	for d := len(r.Buf.Shape) - 1; d >= 0; d-- {
		var m ir.Expr = common.Cst(0)
		if d < len(r.Min) && r.Min[d] != nil {
			m = r.Min[d]
		}
		start = ir.AddE(start, ir.MulE(m, common.Cst(stride)))
		stride *= r.Buf.Shape[d]
	}
	if elemBits > containerBits {
		start = ir.MulE(start, common.Cst(elemBits/containerBits))
	} else if containerBits != elemBits {
		start = ir.DivE(start, common.Cst(containerBits/elemBits))
	}
	if r.Buf.Dtype == form.reg && plainFlat(r.Buf) {
		return nil, elems(r.Buf, ir.SimplifyIndex(start), form.lanes, span) // the view is the buffer itself
	}
	view := &ir.Buffer{Name: r.Buf.Name + "_words", Dtype: form.reg, Scope: "local", Kind: ir.DeclBuffer, Base: r.Buf, Span: span}
	view.Shape = []int64{max(1, r.Buf.NumElements()*elemBits/containerBits)}
	view.Layout = layout.RowMajor(view.Shape...)
	view.Data = r.Buf.Data
	return view, elems(view, ir.SimplifyIndex(start), form.lanes, span)
}

// declOf declares a word view; none when the registers are the buffer's own.
func declOf(view *ir.Buffer, span source.Span) []ir.Stmt {
	if view == nil {
		return nil
	}
	return []ir.Stmt{&ir.Decl{Buf: view, Span: span}}
}

// plainFlat reports whether buf[i] is element i of its storage: a 1-D
// buffer with the default layout.
func plainFlat(b *ir.Buffer) bool {
	return len(b.Shape) == 1 && (b.Layout == nil || b.Layout.String() == layout.RowMajor(b.Shape...).String())
}
