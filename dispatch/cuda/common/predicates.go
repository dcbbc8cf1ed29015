package common

import (
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Predicates shared by the copy variants (TVM copy/utils.py, common.py,
// copy/reg.py, copy/gmem_smem.py). Each returns nil when the call passes;
// messages are TVM's, verbatim.

// check is one step of a composite predicate.
type Check func(*dispatch.Call) *dispatch.Decline

// firstFailure runs checks in order and returns the first decline (TVM's
// `for check in (...): if not ok: return False, msg`).
func FirstFailure(c *dispatch.Call, checks ...Check) *dispatch.Decline {
	for _, ch := range checks {
		if d := ch(c); d != nil {
			return d
		}
	}
	return nil
}

// cudaTarget: "non-cuda target".
func CudaTarget(c *dispatch.Call) *dispatch.Decline {
	if !c.Target.IsCUDA() {
		return c.Declinef(c.Span(), "non-cuda target")
	}
	return nil
}

// execScopeIn: "unsupported exec_scope {k}" (plus an optional suffix).
func ExecScopeIn(suffix string, scopes ...string) Check {
	return func(c *dispatch.Call) *dispatch.Decline {
		for _, s := range scopes {
			if c.Scope == s {
				return nil
			}
		}
		return c.Declinef(OpSpan(c), "unsupported exec_scope %s%s", c.Scope, suffix)
	}
}

func OpSpan(c *dispatch.Call) source.Span {
	if c.Tile.OpSpan.IsValid() {
		return c.Tile.OpSpan
	}
	return c.Tile.Span
}

// validateCopy is TVM validate_copy_op: both buffers have a layout, the
// dtypes match, and the non-unit extents agree in order.
func ValidateCopy(c *dispatch.Call) bool {
	dst, ok1 := c.Region(0)
	src, ok2 := c.Region(1)
	if !ok1 || !ok2 {
		return false
	}
	if !HasLayout(src.Buf) || !HasLayout(dst.Buf) || src.Buf.Dtype != dst.Buf.Dtype {
		return false
	}
	// The non-unit extents of both sides, pairwise, without building the
	// two lists (2% of BenchmarkDispatch3000 allocations).
	se, de := src.Extent, dst.Extent
	for {
		se, de = skipUnit(se), skipUnit(de)
		if len(se) == 0 || len(de) == 0 {
			return len(se) == len(de)
		}
		if !provablyEqual(se[0], de[0]) {
			return false
		}
		se, de = se[1:], de[1:]
	}
}

// skipUnit drops the leading constant-1 extents of es.
func skipUnit(es []ir.Expr) []ir.Expr {
	for len(es) > 0 {
		if v, ok := ir.ConstInt(es[0]); !ok || v != 1 {
			break
		}
		es = es[1:]
	}
	return es
}

func provablyEqual(a, b ir.Expr) bool {
	av, aok := ir.ConstInt(a)
	bv, bok := ir.ConstInt(b)
	if aok && bok {
		return av == bv
	}
	if aok != bok {
		return false
	}
	return dispatch.ExprText(a) == dispatch.ExprText(b)
}

// isValidCopy is TVM _is_valid_copy: "validate_copy_op failed".
func IsValidCopy(c *dispatch.Call) *dispatch.Decline {
	if !ValidateCopy(c) {
		return c.Declinef(c.Span(), "validate_copy_op failed")
	}
	return nil
}

// scopeAllowed is TVM _scope_allowed over the given (src, dst) patterns.
func ScopeAllowed(pairs []ScopePair) Check {
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.Src + "->" + p.Dst
	}
	allowed := strings.Join(parts, ", ") // once, not per decline
	return func(c *dispatch.Call) *dispatch.Decline {
		src, dst := c.Src().Buf.Scope, c.Dst().Buf.Scope
		for _, p := range pairs {
			if MatchScope(src, p.Src) && MatchScope(dst, p.Dst) {
				return nil
			}
		}
		return c.Declinef(c.Span(), "unsupported memory scopes src=%s dst=%s; allowed: %s", src, dst, allowed)
	}
}

// allThreadsActive is TVM _all_threads_active: the scope runs with every
// thread of its instance (no narrowing).
func AllThreadsActive(c *dispatch.Call) *dispatch.Decline {
	if c.Scope == "thread" {
		return nil
	}
	type req struct {
		name     string
		expected int64
	}
	var reqs []req
	switch c.Scope {
	case "warp", "warpgroup", "cta":
		reqs = append(reqs, req{"laneid", 32})
	}
	if c.Scope == "warpgroup" {
		reqs = append(reqs, req{"wid_in_wg", 4})
	}
	if c.Scope == "cta" {
		tx, ok := c.ThreadIdxX()
		if !ok {
			return c.Declinef(OpSpan(c), "cta scope missing threadIdx.x launch_params")
		}
		reqs = append(reqs, req{"warpid", tx / 32})
	}
	for _, r := range reqs {
		ar, ok := c.Intra[r.name]
		if !ok {
			return c.Declinef(OpSpan(c), "sctx.intra missing %s", PyRepr(r.name))
		}
		if ar.Stride != 1 {
			// TVM unpacks a 3-element [ext, off, stride] entry into two
			// names and raises.
			dispatch.Raise("ValueError", "too many values to unpack (expected 2)")
		}
		if !ar.Static() {
			return c.Declinef(OpSpan(c), "non-static range for %s: (%d, %s)", r.name, ar.Extent, dispatch.ExprText(ar.Selector))
		}
		if ar.Extent != r.expected || ar.Offset != 0 {
			return c.Declinef(OpSpan(c), "%s narrowed to [%d, %d) vs full [0, %d)", r.name, ar.Offset, ar.Offset+ar.Extent, r.expected)
		}
	}
	return nil
}

// globalSide returns the region argument index of the global operand of a
// gmem<->smem copy (src when src is global, else dst).
func globalSide(c *dispatch.Call) int {
	if c.Src().Buf.Scope == "global" {
		return 1
	}
	return 0
}

// dividesThreadCnt is TVM _divides_thread_cnt.
func DividesThreadCnt(c *dispatch.Call) *dispatch.Decline {
	t := c.ThreadCnt()
	if t <= 0 {
		return c.Declinef(OpSpan(c), "degenerate thread_cnt=%d (scope has empty intra)", t)
	}
	gi := globalSide(c)
	g, _ := c.Region(gi)
	n, bad, ok := ProdExprs(g.Extent)
	if !ok {
		return c.Declinef(c.ArgSpan(gi), "non-constant region extent %s", dispatch.ExprText(bad))
	}
	if n%t != 0 {
		return c.Declinef(c.ArgSpan(gi), "region size %d not divisible by thread_cnt=%d", n, t)
	}
	return nil
}

// singleThreadExec is TVM _single_thread_exec.
func SingleThreadExec(c *dispatch.Call) *dispatch.Decline {
	if c.Scope != "thread" {
		return c.Declinef(OpSpan(c), "expected thread exec_scope, got %s", c.Scope)
	}
	return nil
}

// regSide returns the index of the `local` operand (src if src is local).
func RegSide(c *dispatch.Call) int {
	if c.Src().Buf.Scope == "local" {
		return 1
	}
	return 0
}

var scopeRank = map[string]int{"thread": 0, "warp": 1, "warpgroup": 2, "cta": 3}

// rSideLayoutValid is TVM _r_side_layout_valid.
func RSideLayoutValid(c *dispatch.Call) *dispatch.Decline {
	ri := RegSide(c)
	r, _ := c.Region(ri)
	span := c.ArgSpan(ri)
	switch l := r.Buf.Layout.(type) {
	case nil:
		return c.Declinef(span, "R has no layout")
	case *layout.ComposeLayout:
		if layout.IsTrivial(l.Tile) {
			return c.Declinef(span, "R layout is swizzle")
		}
		return c.Declinef(span, "R layout is ComposeLayout, not TileLayout")
	}
	lt := r.Buf.Layout.(*layout.TileLayout)
	rank := scopeRank[c.Scope]
	for _, it := range lt.Shard {
		if !it.Axis.IsThread() {
			continue
		}
		outer, inner, ok := it.Axis.Scope()
		if !ok || outer == layout.ScopeNone || inner == layout.ScopeNone {
			return c.Declinef(span, "R thread axis %s missing scope/subscope", PyRepr(it.Axis.Name))
		}
		switch inner {
		case layout.Thread, layout.Warp, layout.Warpgroup:
		default:
			return c.Declinef(span, "R thread axis %s subscope=%s (not register-level)", PyRepr(it.Axis.Name), PyRepr(inner.String()))
		}
		if sr, ok := scopeRank[outer.String()]; !ok || sr > rank {
			return c.Declinef(span, "R thread axis %s scope=%s > exec %s", PyRepr(it.Axis.Name), PyRepr(outer.String()), PyRepr(c.Scope))
		}
	}
	g, ok := ConstRegion(c, ri)
	if !ok {
		return c.Declinef(span, "R layout slice failed")
	}
	sym, ok := SymOffsets(g)
	if !ok {
		return c.Declinef(span, "non-constant region start %s: tilels cannot slice this layout at a symbolic offset", dispatch.ExprText(r))
	}
	sl, ok := SliceLayout(g)
	if !ok {
		return c.Declinef(span, "R layout slice failed")
	}
	st := MustTile(sl)
	for _, a := range SortedAxes(st.Offset) {
		if a.IsThread() && st.Offset[a] != 0 {
			return c.Declinef(span, "R sliced offset on thread axis %s = %d", PyRepr(a.Name), st.Offset[a])
		}
	}
	for a, e := range sym {
		if a.IsThread() {
			if v, ok := ir.ConstInt(e); !ok || v != 0 {
				return c.Declinef(span, "R sliced offset on thread axis %s = %s", PyRepr(a.Name), dispatch.ExprText(e))
			}
		}
	}
	return nil
}

// sSideSliceOk is TVM _s_side_slice_ok.
func SSideSliceOk(c *dispatch.Call) *dispatch.Decline {
	si := 1 - RegSide(c)
	s, _ := c.Region(si)
	span := c.ArgSpan(si)
	if !HasLayout(s.Buf) {
		return c.Declinef(span, "S has no layout")
	}
	g, ok := ConstRegion(c, si)
	if !ok {
		return c.Declinef(span, "S layout slice failed")
	}
	if _, ok := SymOffsets(g); !ok {
		return c.Declinef(span, "non-constant region start %s: tilels cannot slice this layout at a symbolic offset", dispatch.ExprText(s))
	}
	if _, ok := SliceLayout(g); !ok {
		return c.Declinef(span, "S layout slice failed")
	}
	return nil
}

func SortedAxes(m map[*layout.Axis]int64) []*layout.Axis {
	out := make([]*layout.Axis, 0, len(m))
	for a := range m {
		out = append(out, a)
	}
	// deterministic: by name
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Name < out[j-1].Name; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
