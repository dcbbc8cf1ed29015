package eval

import "github.com/tilels/tilels/ir"

// Scope-id extents that are not compile-time integers (T.cta_id and
// friends, dsl/tirxlib/tir.go scopeID).
//
// TVM keeps a scope id's extents as PrimExprs: T.cta_id([cta_count]) over a
// kernel parameter is a symbolic grid, which the dispatch pass turns into a
// launch parameter of unknown size (tile_primitive_dispatch.cc
// ExtractKernelLaunchParams) and which does not change any tile call's
// dispatch (only thread extents do). So such extents are kept as
// ir.ScopeID.Dynamic, not reported.
//
// Extents the evaluator cannot compute (a value tilels does not model, an
// unbound parameter) are reported where they are read; the ids are still
// declared, with ir.ScopeID.Unresolved set, so that the dispatch pass can
// tell "the program declares no thread extent" (TVM's rejection) from
// "tilels does not know it".

// dynamicExtents returns the extents of ext as IR expressions when ext is a
// sequence of one to three integers or integer expressions of which at
// least one is not a constant.
func (ev *Evaluator) DynamicExtents(ext Value) ([]ir.Expr, bool) {
	if !IsSeq(ext) {
		return nil, false
	}
	elts := SeqElts(ext)
	if len(elts) == 0 || len(elts) > 3 || FirstErr(elts...) != nil {
		return nil, false
	}
	dynamic := false
	out := make([]ir.Expr, len(elts))
	for i, e := range elts {
		if _, isConst := ToInt(e); isConst {
			x, ok := ev.ToIR(e, ir.Int32)
			if !ok {
				return nil, false
			}
			out[i] = x
			continue
		}
		x, ok := e.(*ExprV)
		if !ok {
			return nil, false
		}
		if t := ExprType(x.E); t.Code != ir.Int && t.Code != ir.UInt {
			return nil, false
		}
		out[i] = x.E
		dynamic = true
	}
	return out, dynamic
}

// unresolvedExtents reports whether ext could not be converted because it
// holds a value the evaluator could not compute (not a type error), and
// how many ids the declaration makes then: one per element of a sequence
// of one to three elements, else one.
func UnresolvedExtents(ext Value) (int, bool) {
	if IsErr(ext) {
		return 1, true
	}
	if !IsSeq(ext) {
		return 0, false
	}
	elts := SeqElts(ext)
	if FirstErr(elts...) == nil {
		return 0, false
	}
	if len(elts) >= 1 && len(elts) <= 3 {
		return len(elts), true
	}
	return 1, true
}
