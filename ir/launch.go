package ir

import "github.com/tilels/tilels/dsl/source"

// ThreadIndex is the runtime index of the calling thread along one layout
// axis (spec §3.4 _axis_decl): "tx" (threadIdx.x), "laneid" (tx % 32),
// "warpid" (warp_id_in_cta), "wgid" (warp / 4), "tid_in_wg" (tx % 128),
// "wid_in_wg" (warp % 4), "bx"/"by"/"bz" (blockIdx.*).
type ThreadIndex struct {
	Axis string
	Span source.Span
}

func (e *ThreadIndex) Pos() source.Span { return e.Span }
func (*ThreadIndex) exprNode()          {}

// Launch is a kernel's launch configuration, derived from its scope-id
// declarations (spec §1.3) by the dispatch pass.
type Launch struct {
	Grid    [3]int64 // blockIdx extents (1 when absent, 0 when a runtime value)
	Block   [3]int64 // threadIdx extents (1 when absent)
	Cluster [3]int64 // cluster dims (1 when absent)
	// GridExpr holds the runtime grid extents (T.cta_id([n]) over a
	// kernel parameter): GridExpr[i] is set where Grid[i] is 0 and the
	// declaration gave the expression.
	GridExpr [3]Expr
	// DynamicSmem is the dynamic shared memory size in bytes.
	DynamicSmem int64
}

// Threads is the number of threads per CTA.
func (l Launch) Threads() int64 { return l.Block[0] * l.Block[1] * l.Block[2] }

// HostLets maps the variables fn's host code binds with an immutable let
// (cta_count: T.let = T.min(148, n) before T.device_entry()) to their
// values: what a launcher computing a runtime grid extent may inline.
func HostLets(fn *Func) map[*Var]Expr {
	if fn == nil || fn.Host == nil {
		return nil
	}
	var lets map[*Var]Expr
	for _, s := range fn.Host.Stmts {
		if l, ok := s.(*Let); ok && !l.Mutable && l.Var != nil && l.Value != nil {
			if lets == nil {
				lets = map[*Var]Expr{}
			}
			lets[l.Var] = l.Value
		}
	}
	return lets
}
