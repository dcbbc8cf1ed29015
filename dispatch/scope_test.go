package dispatch

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// scopeFunc is a kernel whose body declares ids and then runs one
// cta-scope copy of 128 floats from global to shared memory.
func scopeFunc(ids ...*ir.ScopeID) *ir.Func {
	g := &ir.Buffer{Name: "A", Scope: "global", Dtype: ir.Float32, Shape: []int64{128}, Layout: layout.RowMajor(128)}
	s := &ir.Buffer{Name: "A_s", Scope: "shared.dyn", Dtype: ir.Float32, Shape: []int64{128}, Layout: layout.RowMajor(128)}
	full := func(b *ir.Buffer) *ir.Region {
		return &ir.Region{Buf: b, Min: []ir.Expr{ir.Const(0)}, Extent: []ir.Expr{ir.Const(128)}}
	}
	var stmts []ir.Stmt
	for i, id := range ids {
		id.Span = source.Span{Start: source.Pos(10 + 10*i), End: source.Pos(18 + 10*i)}
		stmts = append(stmts, id)
	}
	stmts = append(stmts, &ir.Alloc{Buf: s, Span: source.Span{Start: 90, End: 95}},
		&ir.TileCall{Op: "copy", Scope: "cta", Args: []ir.Expr{full(s), full(g)},
			Span: source.Span{Start: 100, End: 140}, OpSpan: source.Span{Start: 100, End: 111}})
	return &ir.Func{Name: "k", Params: []*ir.Param{{Buf: g}}, Host: &ir.Block{},
		Body: &ir.Block{Stmts: stmts}, Span: source.Span{Start: 0, End: 200}}
}

func sid(kind ir.ScopeIDKind, ext ...int64) *ir.ScopeID {
	vars := make([]*ir.Var, max(len(ext), 1))
	for i := range vars {
		vars[i] = &ir.Var{Name: string(kind), Type: ir.Int32}
	}
	return &ir.ScopeID{Kind: kind, Vars: vars, Extents: ext}
}

// withParams adds scalar parameters to fn (runtime extents are over them).
func withParams(fn *ir.Func, vs ...*ir.Var) *ir.Func {
	for _, v := range vs {
		fn.Params = append(fn.Params, &ir.Param{Var: v})
	}
	return fn
}

var copyVariants = []Variant{{Op: "copy", Name: "any", Priority: 1, Emit: ok}}

// TestLaunchFromWarpsAndLanes: T.warp_id([4]) and T.lane_id([32]) with no
// T.thread_id give 128 threads (Compose cta->warp x warp->thread), as the
// reference's closure does; warpgroup x warp x lane as well.
func TestLaunchFromWarpsAndLanes(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  []*ir.ScopeID
		want int64
	}{
		{"warp x lane", []*ir.ScopeID{sid(ir.WarpID, 4), sid(ir.LaneID, 32)}, 128},
		{"warpgroup x warp_in_wg x lane", []*ir.ScopeID{sid(ir.WarpgroupID, 2), sid(ir.WarpIDInWG, 4), sid(ir.LaneID, 32)}, 256},
		{"warp, warpgroup, lane", []*ir.ScopeID{sid(ir.WarpID, 12), sid(ir.WarpgroupID, 3), sid(ir.LaneID, 32)}, 384},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Lower(scopeFunc(tc.ids...), DefaultTarget(), copyVariants)
			if len(out.Diags) != 0 {
				t.Fatalf("diagnostics:\n%s", codes(out.Diags))
			}
			if got := out.Launch.Threads(); got != tc.want {
				t.Errorf("threads %d, want %d", got, tc.want)
			}
			if len(out.Decisions) != 1 || out.Decisions[0].Variant != "any" || out.Decisions[0].Threads != tc.want {
				t.Errorf("decisions %+v", out.Decisions)
			}
		})
	}
}

// TestLaunchNoThreads: ids that pin no thread extent down are the
// reference's rejection, an error.
func TestLaunchNoThreads(t *testing.T) {
	out := Lower(scopeFunc(sid(ir.CTAID, 4), sid(ir.LaneID, 32)), DefaultTarget(), copyVariants)
	want := "error dispatch/launch: kernel has no thread launch parameters. At minimum, declare cta->thread extent (e.g., Tx.thread_id([128]))"
	if got := codes(out.Diags); got != want {
		t.Errorf("diagnostics:\n%s\nwant\n%s", got, want)
	}
}

// TestLaunchUnresolvedExtents: when the extents the thread extent hangs on
// could not be evaluated, the launch is unknown to tilels, not missing
// from the program: one information at the kernel, no error, and no tile
// call decided (an exec context of the wrong size would decide wrongly).
func TestLaunchUnresolvedExtents(t *testing.T) {
	warps := sid(ir.WarpID)
	warps.Unresolved = true
	out := Lower(scopeFunc(sid(ir.CTAID, 8), warps, sid(ir.LaneID, 32)), DefaultTarget(), copyVariants)
	got := codes(out.Diags)
	want := "information dispatch/launch: not modelled: the launch configuration: the extents of T.warp_id could not be evaluated, " +
		"so the thread extent is not known and this kernel's tile calls are not dispatched\n" +
		"information dispatch/launch: not modelled: this kernel's thread extent (the extents of T.warp_id could not be evaluated); the call is not dispatched"
	if got != want {
		t.Errorf("diagnostics:\n%s\nwant\n%s", got, want)
	}
	if len(out.Diags) == 2 && out.Diags[1].Span != (source.Span{Start: 100, End: 140}) {
		t.Errorf("the call's information is at %v, want the call", out.Diags[1].Span)
	}
	if len(out.Diags) == 2 && (len(out.Diags[0].Related) != 1 || out.Diags[0].Related[0].Span != warps.Span) {
		t.Errorf("related %+v, want the unresolved declaration at %v", out.Diags[0].Related, warps.Span)
	}
	if len(out.Decisions) != 0 {
		t.Errorf("%d decisions, want none", len(out.Decisions))
	}

	// An unresolved grid does not hide a missing thread extent.
	grid := sid(ir.CTAID)
	grid.Unresolved = true
	out = Lower(scopeFunc(grid, sid(ir.LaneID, 32)), DefaultTarget(), copyVariants)
	if got := codes(out.Diags); !strings.HasPrefix(got, "error dispatch/launch: kernel has no thread launch parameters") {
		t.Errorf("diagnostics:\n%s\nwant the reference's rejection", got)
	}

	// An unresolved id the thread extent does not need changes nothing.
	wg := sid(ir.WarpgroupID)
	wg.Unresolved = true
	out = Lower(scopeFunc(sid(ir.ThreadID, 128), wg), DefaultTarget(), copyVariants)
	if len(out.Diags) != 0 || len(out.Decisions) != 1 || out.Decisions[0].Variant != "any" {
		t.Errorf("diagnostics:\n%s\ndecisions %+v", codes(out.Diags), out.Decisions)
	}
}

// TestLaunchDynamicGrid: T.cta_id([n]) over a runtime value is a symbolic
// grid: the launch has blockIdx.x of unknown size (0), the exec context has
// no CTA axes (PushKernelEntryCtx), and the tile call dispatches as with a
// constant grid.
func TestLaunchDynamicGrid(t *testing.T) {
	n := &ir.Var{Name: "n", Type: ir.Int32}
	grid := sid(ir.CTAID)
	grid.Dynamic = []ir.Expr{n}
	out := Lower(withParams(scopeFunc(grid, sid(ir.ThreadID, 128)), n), DefaultTarget(), copyVariants)
	if len(out.Diags) != 0 {
		t.Fatalf("diagnostics:\n%s", codes(out.Diags))
	}
	if out.Launch.Grid != [3]int64{0, 1, 1} || out.Launch.Threads() != 128 {
		t.Errorf("launch %+v, want grid (0: runtime, 1, 1), 128 threads", out.Launch)
	}
	if len(out.Decisions) != 1 || out.Decisions[0].Variant != "any" || out.Decisions[0].Threads != 128 {
		t.Errorf("decisions %+v", out.Decisions)
	}

	// Two dimensions, one of them constant.
	grid2 := sid(ir.CTAID)
	grid2.Dynamic = []ir.Expr{ir.Const(4), n}
	grid2.Vars = append(grid2.Vars, &ir.Var{Name: "by", Type: ir.Int32})
	out = Lower(withParams(scopeFunc(grid2, sid(ir.ThreadID, 128)), n), DefaultTarget(), copyVariants)
	if len(out.Diags) != 0 || out.Launch.Grid != [3]int64{4, 0, 1} {
		t.Errorf("diagnostics:\n%s\nlaunch %+v, want grid (4, 0: runtime, 1)", codes(out.Diags), out.Launch)
	}

	// A runtime grid checked against a constant one: TVM cannot prove
	// them equal.
	cl := sid(ir.ClusterID, 2)
	ccta := sid(ir.CTAIDInCluster, 2)
	grid3 := sid(ir.CTAID)
	grid3.Dynamic = []ir.Expr{n}
	out = Lower(withParams(scopeFunc(cl, ccta, grid3, sid(ir.ThreadID, 128)), n), DefaultTarget(), copyVariants)
	want := "error dispatch/launch: Inconsistent extents for scope binding 1 (kernel->cta): n vs 4"
	if got := codes(out.Diags); got != want {
		t.Errorf("diagnostics:\n%s\nwant\n%s", got, want)
	}
}

// TestLaunchDynamicThreads: a runtime thread extent turns exec-context
// tracking off (the reference logs a warning and dispatches on the scope
// kind alone).
func TestLaunchDynamicThreads(t *testing.T) {
	tx := sid(ir.ThreadID)
	tx.Dynamic = []ir.Expr{&ir.Var{Name: "nt", Type: ir.Int32}}
	out := Lower(scopeFunc(sid(ir.CTAID, 2), tx), DefaultTarget(), copyVariants)
	got := codes(out.Diags)
	if !strings.Contains(got, "warning dispatch/exec-context: exec context tracking disabled") || strings.Contains(got, "error") {
		t.Errorf("diagnostics:\n%s", got)
	}
}

// TestLaunchDeferredStrict: a deferred id nothing pins down is the
// reference's strict-mode rejection; one its siblings pin down is fine.
func TestLaunchDeferredStrict(t *testing.T) {
	out := Lower(scopeFunc(sid(ir.WarpID), sid(ir.LaneID, 32), sid(ir.ThreadID, 128)), DefaultTarget(), copyVariants)
	if len(out.Diags) != 0 {
		t.Errorf("diagnostics:\n%s", codes(out.Diags))
	}
	for _, tc := range []struct {
		ids  []*ir.ScopeID
		want string
	}{
		{[]*ir.ScopeID{sid(ir.CTAID), sid(ir.ThreadID, 128)}, "1 (kernel->cta)"},
		// cta->thread alone does not give cta->warp: warp->thread is needed.
		{[]*ir.ScopeID{sid(ir.WarpID), sid(ir.ThreadID, 128)}, "4 (cta->warp)"},
		// All deferred (test_verifier.py all_deferred): the verifier's
		// error is the only one, the launch is never extracted.
		{[]*ir.ScopeID{sid(ir.CTAID), sid(ir.WarpgroupID), sid(ir.WarpIDInWG), sid(ir.LaneID)}, "1 (kernel->cta)"},
	} {
		out = Lower(scopeFunc(tc.ids...), DefaultTarget(), copyVariants)
		want := "error dispatch/launch: cannot infer extent of deferred ScopeIdDef for binding " + tc.want + "; " +
			"declare it explicitly or add sibling ScopeIdDefs that pin it down via Compose/Compliment closure"
		if got := codes(out.Diags); got != want {
			t.Errorf("diagnostics:\n%s\nwant\n%s", got, want)
		}
	}
}

// TestLaunchRuntimeGridLauncher: a runtime grid over a scalar parameter is
// computed by the launcher (no diagnostic); one over a value that is not a
// parameter (batch_size = T.int32(), which TVM binds from a buffer shape)
// gets one information, and the dispatch is unchanged.
func TestLaunchRuntimeGridLauncher(t *testing.T) {
	n := &ir.Var{Name: "n", Type: ir.Int32}
	batch := &ir.Var{Name: "batch_size", Type: ir.Int32}
	for _, tc := range []struct {
		name string
		ext  ir.Expr
		want string
	}{
		{"parameter", &ir.Binary{Op: ir.Min, A: &ir.Binary{Op: ir.Mul, A: n, B: ir.Const(2)}, B: ir.Const(132)}, ""},
		{"not a parameter", batch, "information dispatch/launch: not modelled: the launcher of a runtime grid: blockIdx.x extent `batch_size` cannot be computed " +
			"by the host launcher (`batch_size` is not a scalar parameter of the kernel); the kernel is analysed and printed, its launcher reports the launch as unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			grid := sid(ir.CTAID)
			grid.Dynamic = []ir.Expr{tc.ext}
			fn := scopeFunc(grid, sid(ir.ThreadID, 128))
			fn.Params = append(fn.Params, &ir.Param{Var: n})
			out := Lower(fn, DefaultTarget(), copyVariants)
			if got := codes(out.Diags); got != tc.want {
				t.Errorf("diagnostics:\n%s\nwant\n%s", got, tc.want)
			}
			if out.Launch.GridExpr[0] != tc.ext || len(out.Decisions) != 1 || out.Decisions[0].Variant != "any" {
				t.Errorf("launch %+v, decisions %+v", out.Launch, out.Decisions)
			}
		})
	}
}
