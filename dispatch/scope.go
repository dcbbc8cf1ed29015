package dispatch

import (
	"fmt"
	"strconv"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// This file is spec §1.3: scope-id bindings, extent inference to a fixpoint
// (TVM ScopeIdDefVerifier::Verify with Compose and Compliment, in
// src/tirx/ir/exec_scope.cc) and the launch configuration
// (ExtractKernelLaunchParams in tile_primitive_dispatch.cc).

// binding is TVM's ScopeBinding; the numbers appear in messages.
type binding int

const (
	bKernelCluster   binding = 0
	bKernelCta       binding = 1
	bClusterCta      binding = 2
	bCtaWarpgroup    binding = 3
	bCtaWarp         binding = 4
	bWarpgroupWarp   binding = 5
	bWarpThread      binding = 6
	bCtaThread       binding = 7
	bWarpgroupThread binding = 8
)

const numBindings = 9

// bindingParts is indexed by binding (an array, not a map: verifyScopes
// looks parts up in its inner loop).
var bindingParts = [numBindings][2]string{
	bKernelCluster:   {"kernel", "cluster"},
	bKernelCta:       {"kernel", "cta"},
	bClusterCta:      {"cluster", "cta"},
	bCtaWarpgroup:    {"cta", "warpgroup"},
	bCtaWarp:         {"cta", "warp"},
	bWarpgroupWarp:   {"warpgroup", "warp"},
	bWarpThread:      {"warp", "thread"},
	bCtaThread:       {"cta", "thread"},
	bWarpgroupThread: {"warpgroup", "thread"},
}

func (b binding) String() string { p := bindingParts[b]; return p[0] + "->" + p[1] }

func bindingOf(parent, cur string) (binding, bool) {
	for b, p := range bindingParts {
		if p[0] == parent && p[1] == cur {
			return binding(b), true
		}
	}
	return 0, false
}

var kindBinding = map[ir.ScopeIDKind]binding{
	ir.ClusterID:      bKernelCluster,
	ir.CTAID:          bKernelCta,
	ir.CTAIDInCluster: bClusterCta,
	ir.WarpgroupID:    bCtaWarpgroup,
	ir.WarpID:         bCtaWarp,
	ir.WarpIDInWG:     bWarpgroupWarp,
	ir.LaneID:         bWarpThread,
	ir.ThreadID:       bCtaThread,
	ir.ThreadIDInWG:   bWarpgroupThread,
}

// scopeRank orders scope names: kernel is the root, thread the leaf.
func scopeRank(name string) int {
	switch name {
	case "kernel":
		return -1
	case "cluster":
		return 0
	case "cta":
		return 1
	case "warpgroup":
		return 2
	case "warp":
		return 3
	}
	return 4 // thread
}

// scopeDef is one (possibly derived) definition of a binding.
type scopeDef struct {
	b       binding
	extents []int64 // nil when deferred (or derived)
	// derived marks a definition computed by Compose or Compliment: its
	// one extent is ext (kept out of extents to save an allocation per
	// derivation, 10% of BenchmarkDispatch3000 CPU went to verifyScopes).
	derived bool
	ext     int64
	span    source.Span
	// sym is set on a definition whose fused extent is a runtime value
	// (T.cta_id([n]), or derived from one): the expression's text. TVM
	// keeps such extents as PrimExprs; fused() is 0 then, and extents (of
	// a declared one) hold 0 at each runtime dimension.
	sym string
	// dyn is the per-dimension extents of a declaration with runtime
	// extents (for the launcher).
	dyn []ir.Expr
	// unres marks a declaration whose extents the evaluator could not
	// compute (ir.ScopeID.Unresolved): deferred here, and the reason a
	// launch it would pin down is unknown to tilels, not missing.
	unres bool
}

func derivedDef(b binding, ext int64, span source.Span) scopeDef {
	return scopeDef{b: b, derived: true, ext: ext, span: span}
}

func (d scopeDef) known() bool { return d.extents != nil || d.derived }

// text is the fused extent as the messages print it.
func (d scopeDef) text() string {
	if d.sym != "" {
		return d.sym
	}
	return strconv.FormatInt(d.fused(), 10)
}

// sameExtent compares fused extents; runtime ones by their text (no
// allocation for constant ones: verifyScopes is on the hot path).
func sameExtent(a, b scopeDef) bool {
	if a.sym == "" && b.sym == "" {
		return a.fused() == b.fused()
	}
	return a.text() == b.text()
}

// symbolicDef is the definition of a declaration with runtime extents:
// per dimension the constant, or 0 where it is a runtime value.
func symbolicDef(b binding, dyn []ir.Expr, span source.Span) scopeDef {
	exts := make([]int64, len(dyn))
	text := ""
	for i, e := range dyn {
		t := ExprText(e)
		if c, ok := e.(*ir.IntImm); ok {
			exts[i], t = c.Value, strconv.FormatInt(c.Value, 10)
		}
		if i > 0 {
			text += " * "
		}
		text += t
	}
	if len(dyn) > 1 {
		text = "(" + text + ")"
	}
	return scopeDef{b: b, extents: exts, sym: text, dyn: dyn, span: span}
}

func (d scopeDef) fused() int64 {
	if d.derived {
		return d.ext
	}
	n := int64(1)
	for _, e := range d.extents {
		n *= e
	}
	return n
}

// dims returns the per-dimension extents of a known definition.
func (d scopeDef) dims() []int64 {
	if d.derived {
		return []int64{d.ext}
	}
	return d.extents
}

// scopeSet is the closed set of definitions, one per binding at most.
type scopeSet struct {
	defs [numBindings]scopeDef
	has  [numBindings]bool
	n    int
}

func (s *scopeSet) get(b binding) (scopeDef, bool) { return s.defs[b], s.has[b] }

type scopeError struct {
	span source.Span
	msg  string
}

// verifyScopes closes the set of bindings under Compose and Compliment.
// It returns the closed set and the first error.
func verifyScopes(defs []scopeDef) (*scopeSet, *scopeError) {
	set := &scopeSet{}
	var orderBuf [numBindings]binding
	order := orderBuf[:0] // deterministic iteration
	var queue []scopeDef
	var errOut *scopeError
	insert := func(d scopeDef) {
		ex, ok := set.get(d.b)
		if !ok {
			set.defs[d.b], set.has[d.b] = d, true
			set.n++
			order = append(order, d.b)
			if d.known() {
				queue = append(queue, d)
			}
			return
		}
		switch {
		case !ex.known() && d.known():
			up := derivedDef(ex.b, d.fused(), ex.span)
			up.sym = d.sym
			set.defs[d.b] = up
			queue = append(queue, up)
		case ex.known() && d.known() && !sameExtent(ex, d) && errOut == nil:
			// TVM: CanProveEqual; tilels compares runtime extents by
			// their text.
			span := d.span
			if !span.IsValid() {
				span = ex.span
			}
			errOut = &scopeError{span, fmt.Sprintf("Inconsistent extents for scope binding %d (%s): %s vs %s",
				int(d.b), d.b, ex.text(), d.text())}
		}
	}
	for _, d := range defs {
		insert(d)
	}
	var snapBuf [numBindings]scopeDef
	for len(queue) > 0 && errOut == nil {
		head := queue[0]
		queue = queue[1:]
		snapshot := snapBuf[:0]
		for _, b := range order {
			snapshot = append(snapshot, set.defs[b])
		}
		for _, d := range snapshot {
			if !d.known() {
				continue
			}
			for _, pair := range [2][2]scopeDef{{head, d}, {d, head}} {
				if r, ok := compose(pair[0], pair[1]); ok {
					insert(r)
				}
				r, ok, err := compliment(pair[0], pair[1])
				if err != nil && errOut == nil {
					errOut = err
				}
				if ok {
					insert(r)
				}
			}
		}
	}
	if errOut == nil {
		errOut = strictDeferred(defs, set)
	}
	return set, errOut
}

// strictDeferred is Verify's strict mode (the dispatch pass verifies
// strictly): a deferred declaration the closure did not pin down is an
// error. Not when a declaration's extents were unresolved: the values
// tilels lacks may well pin it down (the launch says what stays unknown).
func strictDeferred(defs []scopeDef, set *scopeSet) *scopeError {
	for _, d := range defs {
		if d.unres {
			return nil
		}
	}
	for _, d := range defs {
		if d.known() {
			continue
		}
		if r, ok := set.get(d.b); !ok || !r.known() {
			return &scopeError{d.span, fmt.Sprintf("cannot infer extent of deferred ScopeIdDef for binding %d (%s); "+
				"declare it explicitly or add sibling ScopeIdDefs that pin it down via Compose/Compliment closure", int(d.b), d.b)}
		}
	}
	return nil
}

func compose(l, r scopeDef) (scopeDef, bool) {
	lp, rp := bindingParts[l.b], bindingParts[r.b]
	if lp[1] != rp[0] {
		return scopeDef{}, false
	}
	b, ok := bindingOf(lp[0], rp[1])
	if !ok {
		return scopeDef{}, false
	}
	if l.sym != "" || r.sym != "" {
		d := derivedDef(b, 0, source.NoSpan)
		d.sym = l.text() + " * " + r.text()
		return d, true
	}
	return derivedDef(b, l.fused()*r.fused(), source.NoSpan), true
}

func compliment(l, r scopeDef) (scopeDef, bool, *scopeError) {
	re := r.fused()
	if re == 0 && r.sym == "" {
		return scopeDef{}, false, nil
	}
	lp, rp := bindingParts[l.b], bindingParts[r.b]
	try := func(b binding) (scopeDef, bool, *scopeError) {
		if l.sym != "" || r.sym != "" {
			// TVM cannot prove a runtime extent indivisible: the
			// quotient stays symbolic (n // n is 1).
			if l.text() == r.text() {
				return derivedDef(b, 1, source.NoSpan), true, nil
			}
			d := derivedDef(b, 0, source.NoSpan)
			d.sym = l.text() + " // " + r.text()
			return d, true, nil
		}
		le := l.fused()
		if le%re == 0 {
			return derivedDef(b, le/re, source.NoSpan), true, nil
		}
		span := l.span
		if !span.IsValid() {
			span = r.span
		}
		return scopeDef{}, false, &scopeError{span, fmt.Sprintf(
			"scope binding %d (%s) has non-divisible extents: %d is not divisible by %d", int(b), b, le, re)}
	}
	if lp[0] == rp[0] && scopeRank(rp[1]) < scopeRank(lp[1]) {
		if b, ok := bindingOf(rp[1], lp[1]); ok {
			return try(b)
		}
	}
	if lp[1] == rp[1] && scopeRank(lp[0]) < scopeRank(rp[0]) {
		if b, ok := bindingOf(lp[0], rp[0]); ok {
			return try(b)
		}
	}
	return scopeDef{}, false, nil
}

// launchInfo is the kernel's launch configuration plus the context facts
// the pass needs.
type launchInfo struct {
	launch ir.Launch
	tags   map[string]bool
	// clusterAxes is non-empty when a cluster of size ≠ 1 is declared.
	clusterAxes []axisExtent
	ctaAxes     []axisExtent
	// unknown names the declaration (T.warp_id) whose unresolved extents
	// (ir.ScopeID.Unresolved) leave the thread extent unknown: the pass
	// then decides no tile call ("" when the launch is known).
	unknown string
}

// notDispatched is the information a tile call gets when the launch is
// unknown (launchInfo.unknown).
func (li *launchInfo) notDispatched(tc *ir.TileCall) diag.Diagnostic {
	return diag.Infof(tc.Span, "dispatch/launch",
		"not modelled: this kernel's thread extent (the extents of %s could not be evaluated); the call is not dispatched", li.unknown)
}

// declName is the DSL declaration of a binding (T.warp_id for cta->warp).
func declName(b binding) string {
	for k, kb := range kindBinding {
		if kb == b {
			return "T." + string(k)
		}
	}
	return b.String()
}

// buildLaunch is ExtractKernelLaunchParams. It appends launch diagnostics.
func buildLaunch(set *scopeSet, fnSpan source.Span, diags *[]diag.Diagnostic) launchInfo {
	li := launchInfo{launch: ir.Launch{Grid: [3]int64{1, 1, 1}, Block: [3]int64{1, 1, 1}, Cluster: [3]int64{1, 1, 1}},
		tags: map[string]bool{}}
	add := func(b binding, prefix string, dst *[3]int64, axes *[]axisExtent, axisNames [3]string) {
		d, ok := set.get(b)
		if !ok || !d.known() {
			return
		}
		exts := d.dims()
		if len(exts) > 3 {
			*diags = append(*diags, diag.Errorf(d.span, "dispatch/launch",
				"only up to 3 extents are supported, got %d for %s", len(exts), b))
			return
		}
		for i, e := range exts {
			li.tags[prefix+string(rune('x'+i))] = true
			dst[i] = e // 0: a runtime extent
			if axes != nil {
				*axes = append(*axes, axisExtent{axisNames[i], e})
			}
		}
		if axes != nil && d.sym != "" {
			// PushKernelEntryCtx: runtime CTA extents give no axes.
			*axes = nil
		}
	}
	if d, ok := set.get(bKernelCta); ok && d.dyn != nil && len(d.dyn) <= 3 {
		for i, e := range d.dyn {
			if d.extents[i] == 0 {
				li.launch.GridExpr[i] = e
			}
		}
	}
	if cc, ok := set.get(bClusterCta); !ok || !cc.known() || cc.fused() == 1 {
		add(bKernelCta, "blockIdx.", &li.launch.Grid, &li.ctaAxes, [3]string{"bx", "by", "bz"})
	} else {
		add(bClusterCta, "clusterCtaIdx.", &li.launch.Cluster, &li.clusterAxes, [3]string{"cbx", "cby", "cbz"})
		add(bKernelCta, "blockIdx.", &li.launch.Grid, &li.ctaAxes, [3]string{"bx", "by", "bz"})
	}
	add(bCtaThread, "threadIdx.", &li.launch.Block, nil, [3]string{})
	if set.n > 0 && !li.tags["threadIdx.x"] {
		if d, ok := set.firstUnresolved(); ok {
			// Not the program's fault: tilels lacks a value.
			li.unknown = declName(d.b)
			li.launch.Block[0] = 0 // unknown: the launcher says so
			dg := diag.Infof(fnSpan, "dispatch/launch",
				"not modelled: the launch configuration: the extents of %s could not be evaluated, "+
					"so the thread extent is not known and this kernel's tile calls are not dispatched", li.unknown)
			dg.Related = []diag.Related{{Span: d.span, Message: "extents not evaluated"}}
			*diags = append(*diags, dg)
			return li
		}
		*diags = append(*diags, diag.Errorf(fnSpan, "dispatch/launch",
			"kernel has no thread launch parameters. At minimum, declare cta->thread extent (e.g., Tx.thread_id([128]))"))
	}
	return li
}

// firstUnresolved returns the first declaration, in binding order, whose
// extents were unresolved and that the closure did not pin down.
func (s *scopeSet) firstUnresolved() (scopeDef, bool) {
	for b := range numBindings {
		// Only ids below the CTA can pin a thread extent down.
		if p := bindingParts[b][0]; p == "kernel" || p == "cluster" {
			continue
		}
		if s.has[b] && s.defs[b].unres && !s.defs[b].known() {
			return s.defs[b], true
		}
	}
	return scopeDef{}, false
}

// launcherGap returns an information when the kernel's grid has a runtime
// extent its host launcher cannot compute: one over values that are not
// scalar kernel parameters (batch_size = T.int32(), bound by TVM from a
// buffer's shape at run time) or over operations the launcher does not
// print (codegen/cuda/host_expr.go handles integer constants,
// parameters and host-side lets over them, + - * // % min max and integer
// casts; 4096 nodes at most, lets inlined). The kernel is analysed and
// printed; its launcher reports the launch as unknown.
func launcherGap(fn *ir.Func, l ir.Launch) (diag.Diagnostic, bool) {
	params := map[*ir.Var]bool{}
	for _, p := range fn.Params {
		if p != nil && p.Buf == nil && p.Var != nil {
			params[p.Var] = true
		}
	}
	lets := ir.HostLets(fn)
	depth := 0
	var bad func(e ir.Expr) string
	bad = func(e ir.Expr) string {
		if depth++; depth > 4096 {
			return "the expression is too large for the launcher"
		}
		switch x := e.(type) {
		case *ir.IntImm:
			return ""
		case *ir.Var:
			if v, ok := lets[x]; ok {
				return bad(v) // a host-side let: the launcher inlines it
			}
			if params[x] && (x.Type.Code == ir.Int || x.Type.Code == ir.UInt) {
				return ""
			}
			return "`" + x.Name + "` is not a scalar parameter of the kernel"
		case *ir.Cast:
			if x.To.Code == ir.Int || x.To.Code == ir.UInt {
				return bad(x.X)
			}
		case *ir.Binary:
			switch x.Op {
			case ir.Add, ir.Sub, ir.Mul, ir.FloorDiv, ir.FloorMod, ir.Min, ir.Max:
				if r := bad(x.A); r != "" {
					return r
				}
				return bad(x.B)
			}
		}
		return "`" + ExprText(e) + "` is not an expression the launcher prints"
	}
	for i, e := range l.GridExpr {
		if e == nil {
			continue
		}
		if why := bad(e); why != "" {
			return diag.Infof(fnSpan(fn), "dispatch/launch",
				"not modelled: the launcher of a runtime grid: blockIdx.%c extent `%s` cannot be computed by the host launcher (%s); the kernel is analysed and printed, its launcher reports the launch as unknown",
				'x'+i, ExprText(e), why), true
		}
	}
	return diag.Diagnostic{}, false
}
