package dispatch

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Output is the result of Lower.
type Output struct {
	// Foreign is set, and nothing else, when the kernel was written for
	// another target than the one dispatched for (ForeignTarget): "trn".
	// ForeignWhy and ForeignSpan say which buffer showed it.
	Foreign, ForeignWhy string
	ForeignSpan         source.Span

	// Func is the lowered function: every TileCall replaced by an
	// *ir.Lowered. Blocks on the path to a TileCall are fresh copies; all
	// other nodes are shared with the input.
	Func   *ir.Func
	Launch ir.Launch
	// Decisions has one entry per TileCall, in source order.
	Decisions []*Decision
	// Diags are the pass's diagnostics (codes dispatch/*), in walk order;
	// callers sort them with diag.Sort.
	Diags []diag.Diagnostic
}

// Decision is what happened to one TileCall.
type Decision struct {
	Call  *ir.TileCall
	Scope string
	// Threads is TVM _thread_cnt: the product of the intra extents.
	Threads int64
	// Intra and Inter are the call's exec-context split (spec §3.3). They
	// are read-only: calls under the same active set and scope share them.
	Intra, Inter map[string]AxisRange
	// Variant is the selected variant, "" when none applied.
	Variant     string
	Result      *Result
	Explanation *Explanation
	// Declined lists every variant tried before the selected one (every
	// variant tried when none applied), in dispatch order, explicit-only
	// ones included as in TVM's table.
	Declined []Rejection

	// ctx is the call's dispatch context, kept for Probe (probe.go).
	ctx *Call
}

// Rejection is one variant that was tried and did not apply (rejected by
// a predicate, declined by its emitter, or panicked).
type Rejection struct {
	Variant      string
	Priority     int
	ExplicitOnly bool
	Outcome      Outcome // Rejected, Declined or Exception
	// Reason is the bare reason ("region size 24 not divisible by
	// thread_cnt=32"); several failed predicates are joined with "; ".
	Reason string
	// Messages are the table cell lines ("rejected: p — reason").
	Messages []string
	// Span is where the first reason points.
	Span source.Span
	// Note is what tilels adds to the reason (Decline.Note): a known bug of
	// the release, said apart from the reference's text.
	Note string
}

// scopeTarget says which scope id a Var is (TVM ScopeIdTarget).
type scopeTarget struct {
	kind      ir.ScopeIDKind
	dim, ndim int
}

type lowerer struct {
	reg      *Registry
	target   Target
	li       launchInfo
	tracked  bool
	vars     map[*ir.Var]scopeTarget
	laneVars []*ir.Var           // single-dim lane_id vars, in declaration order
	lets     map[*ir.Var]ir.Expr // immutable device lets seen so far (Call.Lets)
	state    map[string]any
	out      *Output
	// switches memoizes scopeSwitch per (active set, scope): the calls of
	// one block share both, and their (inter, intra) maps are read-only.
	// Two fresh maps per call were 10% of BenchmarkDispatch3000 bytes; the
	// memo saves 4% of them (5.51 → 5.26 MB/op).
	switches map[switchKey]switchResult
	// maps and init collect Result.TensorMaps and Result.Init.
	maps []*ir.TensorMap
	init []ir.Stmt
	// postDefs collect Result.PostDef, each with the call's lowering (the
	// fallback place when the kernel does not define the buffer).
	postDefs []postDef
	// loops are the loops around the statement being walked (Call.Loops).
	loops []*ir.For
}

type switchKey struct {
	set   *axisEntry // &a[0]: active sets are never modified in place
	n     int
	scope string
}

type switchResult struct {
	inter, intra map[string]AxisRange
	err          string
}

// scopeSwitch is the package-level scopeSwitch, memoized.
func (l *lowerer) scopeSwitch(a activeSet, scope string) (inter, intra map[string]AxisRange, err string) {
	if len(a) == 0 {
		return scopeSwitch(a, scope)
	}
	k := switchKey{&a[0], len(a), scope}
	if r, ok := l.switches[k]; ok {
		return r.inter, r.intra, r.err
	}
	inter, intra, err = scopeSwitch(a, scope)
	if l.switches == nil {
		l.switches = map[switchKey]switchResult{}
	}
	l.switches[k] = switchResult{inter, intra, err}
	return inter, intra, err
}

// Lower runs the dispatch pass over fn (spec §3.3): it infers scope-id
// extents and the launch configuration, tracks the active thread set
// through narrowing ifs, and selects a variant for every TileCall. fn is
// not modified. It builds a Registry from variants on every call; callers
// that lower many kernels build one and call Registry.Lower.
func Lower(fn *ir.Func, target Target, variants []Variant) *Output {
	return NewRegistry(variants).Lower(fn, target)
}

// Lower is the package-level Lower with a prebuilt registry. It is safe to
// call concurrently on different (or the same) functions.
func (r *Registry) Lower(fn *ir.Func, target Target) *Output {
	if target.Kind == "trn" {
		return r.lowerTRN(fn, target) // trn_pass.go
	}
	if kind, why, span := ForeignTarget(fn); kind != "" && kind != target.Kind {
		return &Output{Foreign: kind, ForeignWhy: why, ForeignSpan: span}
	}
	out := &Output{}
	l := &lowerer{reg: r, target: target, vars: map[*ir.Var]scopeTarget{},
		state: map[string]any{}, out: out}

	// 1. Scope ids: collect, close, launch. (Count the tile calls too, to
	// size Decisions once: 0.5% of BenchmarkDispatch3000 allocations.)
	var defs []scopeDef
	nCalls := 0
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		if _, ok := s.(*ir.TileCall); ok {
			nCalls++
		}
		if sid, ok := s.(*ir.ScopeID); ok {
			if b, ok := kindBinding[sid.Kind]; ok {
				if sid.Dynamic != nil {
					defs = append(defs, symbolicDef(b, sid.Dynamic, sid.Span))
					return
				}
				var ext []int64
				if sid.Extents != nil {
					ext = append([]int64{}, sid.Extents...)
				}
				defs = append(defs, scopeDef{b: b, extents: ext, span: sid.Span, unres: sid.Unresolved})
			}
		}
	})
	if nCalls > 0 {
		out.Decisions = make([]*Decision, 0, nCalls)
	}
	set, serr := verifyScopes(defs)
	if serr != nil {
		out.Diags = append(out.Diags, diag.Errorf(serr.span, "dispatch/launch", "%s", serr.msg))
	}
	launchDiags := &out.Diags
	if serr != nil {
		// The reference's verifier raised: ExtractKernelLaunchParams
		// never runs, so its rejections would be a second error.
		launchDiags = new([]diag.Diagnostic)
	}
	l.li = buildLaunch(set, fnSpan(fn), launchDiags)
	out.Launch = l.li.launch
	if d, ok := launcherGap(fn, out.Launch); ok {
		out.Diags = append(out.Diags, d)
	}

	// 2. Kernel-entry active set.
	threadExt := int64(1)
	for i, t := range []string{"threadIdx.x", "threadIdx.y", "threadIdx.z"} {
		if l.li.tags[t] {
			threadExt *= l.li.launch.Block[i]
		}
	}
	var entry activeSet
	if threadExt > 0 {
		l.tracked = true
		ctaAxes := l.li.clusterAxes
		if len(ctaAxes) == 0 {
			ctaAxes = l.li.ctaAxes
		}
		ctaExt := int64(1)
		for _, a := range ctaAxes {
			ctaExt *= a.extent
		}
		if len(ctaAxes) <= 1 {
			ctaAxes = nil
		}
		entry = initialActiveSet(warpSize, threadExt/warpSize, ctaExt, ctaAxes)
	} else {
		out.Diags = append(out.Diags, diag.Warningf(fnSpan(fn), "dispatch/exec-context",
			"exec context tracking disabled: threadIdx extent %d", threadExt))
	}

	// 3. Walk and dispatch.
	body, _ := l.block(fn.Body, entry)
	if len(l.postDefs) > 0 {
		body = withPostDefs(body, l.postDefs)
	}
	nf := *fn
	nf.Body = withInit(body, l.init)
	nf.TensorMaps = append(append([]*ir.TensorMap(nil), fn.TensorMaps...), l.maps...)
	out.Func = &nf
	return out
}

// withInit puts the kernel-start statements after b's leading scope-id
// declarations (where TVM's add_init_stmt places them: after the launch
// parameters are bound, before the first user statement).
func withInit(b *ir.Block, init []ir.Stmt) *ir.Block {
	if len(init) == 0 || b == nil {
		return b
	}
	i := 0
	for i < len(b.Stmts) {
		if _, ok := b.Stmts[i].(*ir.ScopeID); !ok {
			break
		}
		i++
	}
	stmts := make([]ir.Stmt, 0, len(b.Stmts)+len(init))
	stmts = append(stmts, b.Stmts[:i]...)
	stmts = append(stmts, init...)
	stmts = append(stmts, b.Stmts[i:]...)
	return &ir.Block{Stmts: stmts, Span: b.Span}
}

func fnSpan(fn *ir.Func) source.Span {
	if fn.NameSpan.IsValid() {
		return fn.NameSpan
	}
	return fn.Span
}

// block lowers the statements of b under the active set a. It returns b
// itself when nothing below changed.
func (l *lowerer) block(b *ir.Block, a activeSet) (*ir.Block, bool) {
	if b == nil {
		return nil, false
	}
	var stmts []ir.Stmt
	for i, s := range b.Stmts {
		ns, changed := l.stmt(s, a)
		if changed && stmts == nil {
			stmts = make([]ir.Stmt, i, len(b.Stmts))
			copy(stmts, b.Stmts[:i])
		}
		if stmts != nil {
			stmts = append(stmts, ns)
		}
	}
	if stmts == nil {
		return b, false
	}
	return &ir.Block{Stmts: stmts, Span: b.Span}, true
}

func (l *lowerer) stmt(s ir.Stmt, a activeSet) (ir.Stmt, bool) {
	switch s := s.(type) {
	case *ir.ScopeID:
		for i, v := range s.Vars {
			l.vars[v] = scopeTarget{kind: s.Kind, dim: i, ndim: len(s.Vars)}
		}
		if s.Kind == ir.LaneID && len(s.Vars) == 1 {
			l.laneVars = append(l.laneVars, s.Vars[0])
		}
	case *ir.Let:
		if !s.Mutable {
			if l.lets == nil {
				l.lets = map[*ir.Var]ir.Expr{}
			}
			l.lets[s.Var] = s.Value
		}
	case *ir.TileCall:
		if l.li.unknown != "" {
			// The launch is not known (buildLaunch says why): an empty
			// body, as for a call no variant took.
			l.out.Diags = append(l.out.Diags, l.li.notDispatched(s))
			return &ir.Lowered{Call: s, Body: &ir.Block{Span: s.Span}, Span: s.Span}, true
		}
		return l.dispatch(s, a), true
	case *ir.Block:
		if nb, ok := l.block(s, a); ok {
			return nb, true
		}
	case *ir.For:
		l.loops = append(l.loops, s) // the analyzer's var ranges (Call.Loops)
		nb, ok := l.block(s.Body, a)
		l.loops = l.loops[:len(l.loops)-1]
		if ok {
			n := *s
			n.Body = nb
			return &n, true
		}
	case *ir.While:
		if nb, ok := l.block(s.Body, a); ok {
			n := *s
			n.Body = nb
			return &n, true
		}
	case *ir.If:
		then, ok1 := l.block(s.Then, l.narrow(a, s.Cond))
		els, ok2 := l.block(s.Else, a)
		cond := rewriteFilterCalls(s.Cond)
		if ok1 || ok2 || cond != s.Cond {
			n := *s
			n.Cond, n.Then, n.Else = cond, then, els
			return &n, true
		}
	}
	return s, false
}

// rewriteFilterCalls replaces each T.filter(var, pred) call in an if
// condition by pred, once narrowing has read it (TVM RewriteFilterCalls:
// through And and call arguments).
func rewriteFilterCalls(e ir.Expr) ir.Expr {
	switch x := e.(type) {
	case *ir.Binary:
		if x.Op != ir.And {
			return e
		}
		a, b := rewriteFilterCalls(x.A), rewriteFilterCalls(x.B)
		if a == x.A && b == x.B {
			return e
		}
		n := *x
		n.A, n.B = a, b
		return &n
	case *ir.Call:
		if x.Op == ir.OpFilter && len(x.Args) == 2 {
			return rewriteFilterCalls(x.Args[1])
		}
		var args []ir.Expr
		for i, arg := range x.Args {
			if na := rewriteFilterCalls(arg); na != arg {
				if args == nil {
					args = slices.Clone(x.Args)
				}
				args[i] = na
			}
		}
		if args == nil {
			return e
		}
		n := *x
		n.Args = args
		return &n
	}
	return e
}

// ---- narrowing (spec §1.6; TVM TryPushCanonicalCtx) ----

type filterAtom struct {
	elect  ir.Expr // the elect_sync call, or nil for a range atom
	v      *ir.Var
	lo, hi int64
}

func stripCast(e ir.Expr) ir.Expr {
	for {
		c, ok := e.(*ir.Cast)
		if !ok {
			return e
		}
		e = c.X
	}
}

func flattenConj(e ir.Expr, out []ir.Expr) []ir.Expr {
	e = stripCast(e)
	if b, ok := e.(*ir.Binary); ok && (b.Op == ir.And || b.Op == ir.BitAnd) {
		out = flattenConj(b.A, out)
		return flattenConj(b.B, out)
	}
	return append(out, e)
}

func isElectSync(e ir.Expr) bool {
	c, ok := e.(*ir.Call)
	return ok && c.Op == ir.OpElectSync
}

func containsElectSync(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Call:
		if e.Op == ir.OpElectSync {
			return true
		}
		for _, a := range e.Args {
			if containsElectSync(a) {
				return true
			}
		}
	case *ir.Binary:
		return containsElectSync(e.A) || containsElectSync(e.B)
	case *ir.Not:
		return containsElectSync(e.X)
	case *ir.Neg:
		return containsElectSync(e.X)
	case *ir.Cast:
		return containsElectSync(e.X)
	case *ir.Select:
		return containsElectSync(e.Cond) || containsElectSync(e.A) || containsElectSync(e.B)
	}
	return false
}

// classify is TVM TryClassifyCanonical; ok is false for other shapes.
func (l *lowerer) classify(cond ir.Expr) ([]filterAtom, bool) {
	terms := flattenConj(cond, nil)
	var atoms []filterAtom
	for _, t := range terms {
		if isElectSync(t) {
			atoms = append(atoms, filterAtom{elect: t})
			continue
		}
		b, ok := t.(*ir.Binary)
		if !ok {
			return nil, false
		}
		switch b.Op {
		case ir.EQ, ir.LT, ir.LE, ir.GT, ir.GE:
		default:
			return nil, false
		}
		op := b.Op
		v, vok := b.A.(*ir.Var)
		c, cok := b.B.(*ir.IntImm)
		if !vok || !cok {
			v, vok = b.B.(*ir.Var)
			c, cok = b.A.(*ir.IntImm)
			if !vok || !cok {
				return nil, false
			}
			op = op.Mirrored()
		}
		if _, ok := l.vars[v]; !ok {
			return nil, false
		}
		at := filterAtom{v: v}
		switch op {
		case ir.EQ:
			at.lo, at.hi = c.Value, c.Value+1
		case ir.LT:
			at.lo, at.hi = negInf, c.Value
		case ir.LE:
			at.lo, at.hi = negInf, c.Value+1
		case ir.GT:
			at.lo, at.hi = c.Value+1, posInf
		case ir.GE:
			at.lo, at.hi = c.Value, posInf
		}
		atoms = append(atoms, at)
	}
	return atoms, len(atoms) > 0
}

// narrow returns the active set of the then-branch of `if cond`.
func (l *lowerer) narrow(a activeSet, cond ir.Expr) activeSet {
	if !l.tracked || a == nil {
		return a
	}
	atoms, ok := l.classify(cond)
	if !ok {
		if containsElectSync(cond) {
			if na, ok := l.pushSelector(a, cond); ok {
				return na
			}
		}
		if f, ok := cond.(*ir.Call); ok && f.Op == ir.OpFilter && len(f.Args) == 2 && !containsElectSync(cond) {
			// TVM PushFilterPredicateCtx without elect_sync: the
			// predicate narrows as an if condition of its own
			return l.narrow(a, f.Args[1])
		}
		return a
	}
	type group struct {
		t      scopeTarget
		lo, hi int64
	}
	var groups []group
	var elects []ir.Expr
	for _, at := range atoms {
		if at.elect != nil {
			elects = append(elects, at.elect)
			continue
		}
		t := l.vars[at.v]
		merged := false
		for i := range groups {
			if groups[i].t == t {
				groups[i].lo = max(groups[i].lo, at.lo)
				groups[i].hi = min(groups[i].hi, at.hi)
				merged = true
				break
			}
		}
		if !merged {
			groups = append(groups, group{t, at.lo, at.hi})
		}
	}
	consumed := make([]bool, len(groups))
	for progress := true; progress; {
		progress = false
		for i, g := range groups {
			if consumed[i] {
				continue
			}
			if g.lo >= g.hi {
				consumed[i] = true
				continue
			}
			if na, ok := l.pushRange(a, g.t, g.lo, g.hi); ok {
				a = na
				consumed[i] = true
				progress = true
			}
		}
	}
	for _, e := range elects {
		if na, ok := l.pushSelector(a, e); ok {
			a = na
		}
	}
	return a
}

func (l *lowerer) pushRange(a activeSet, t scopeTarget, lo, hi int64) (activeSet, bool) {
	if t.kind == ir.CTAID && len(l.li.clusterAxes) > 0 {
		return nil, false
	}
	if t.ndim != 1 {
		var names [3]string
		switch t.kind {
		case ir.CTAID:
			names = [3]string{"bx", "by", "bz"}
		case ir.CTAIDInCluster:
			names = [3]string{"cbx", "cby", "cbz"}
		default:
			return nil, false
		}
		if t.dim < 0 || t.dim >= 3 || lo >= hi {
			return nil, false
		}
		return a.narrowAxis(names[t.dim], lo, hi)
	}
	return a.filterNarrow(t.kind, lo, hi)
}

// pushSelector narrows laneid to the one lane elect_sync picks.
func (l *lowerer) pushSelector(a activeSet, cond ir.Expr) (activeSet, bool) {
	if len(l.laneVars) == 0 {
		return nil, false
	}
	lane := l.laneVars[len(l.laneVars)-1]
	sel := &ir.Call{Op: "selector", Args: []ir.Expr{lane, cond}, Type: ir.Int32, Span: cond.Pos()}
	return a.with("laneid", AxisRange{Extent: 1, Stride: 1, Selector: sel}), true
}

// ---- per-call dispatch ----

func (l *lowerer) dispatch(tc *ir.TileCall, a activeSet) ir.Stmt {
	c := &Call{Tile: tc, Target: l.target, Scope: tc.Scope, Launch: l.li.launch,
		LaunchTags: l.li.tags, Lets: l.lets, state: l.state}
	if len(l.loops) > 0 {
		c.Loops = slices.Clip(l.loops)
	}
	if c.Scope == "" {
		c.Scope = "thread"
	}
	if l.tracked && a != nil {
		inter, intra, err := l.scopeSwitch(a, c.Scope)
		if err == "" {
			c.Inter, c.Intra, c.Tracked = inter, intra, true
		} else {
			l.out.Diags = append(l.out.Diags, diag.Warningf(opSpan(tc), "dispatch/exec-context",
				"exec context scope switch failed: %s", err))
		}
	}
	if !c.Tracked { // empty, never nil; built only here (scopeSwitch builds its own)
		c.Intra, c.Inter = map[string]AxisRange{}, map[string]AxisRange{}
	}
	res, name, expl := l.reg.Select(c)
	d := &Decision{Call: tc, Scope: c.Scope, Threads: c.ThreadCnt(), Intra: c.Intra, Inter: c.Inter,
		Variant: name, Result: res, Explanation: expl, ctx: c}
	c.scratch = nil // the decision keeps the context for Probe, not the variants' per-call memo
	n := 0
	for _, at := range expl.Attempts {
		if at.Outcome != Selected && at.Outcome != Skipped {
			n++
		}
	}
	if n > 0 {
		d.Declined = make([]Rejection, 0, n)
	}
	for _, at := range expl.Attempts {
		if at.Outcome == Selected || at.Outcome == Skipped {
			continue
		}
		dv := Rejection{Variant: at.Variant, Priority: at.Priority, ExplicitOnly: at.ExplicitOnly,
			Outcome: at.Outcome, Reason: at.bareReason(), Messages: at.Messages, Span: tc.Span}
		if len(at.Declines) > 0 {
			dv.Span, dv.Note = at.Declines[0].Span, at.Declines[0].Note
		}
		d.Declined = append(d.Declined, dv)
	}
	l.out.Decisions = append(l.out.Decisions, d)
	l.diagnose(d)
	low := &ir.Lowered{Call: tc, Variant: name, Span: tc.Span}
	if res != nil {
		l.maps = append(l.maps, res.TensorMaps...)
		l.init = append(l.init, res.Init...)
	}
	if res != nil && res.Body != nil {
		low.Body = res.Body
	} else {
		low.Body = &ir.Block{Span: tc.Span}
	}
	if res != nil {
		for _, pd := range res.PostDef {
			l.postDefs = append(l.postDefs, postDef{pd, low})
		}
	}
	return low
}

func opSpan(tc *ir.TileCall) source.Span {
	if tc.OpSpan.IsValid() {
		return tc.OpSpan
	}
	return tc.Span
}

// diagnose appends the diagnostics for one decision.
func (l *lowerer) diagnose(d *Decision) {
	tc, e := d.Call, d.Explanation
	switch {
	case d.Variant == "fallback" && tc.Dispatch == "":
		var parts []string
		var rel []diag.Related
		span := source.NoSpan
		same := true
		for _, at := range d.Declined {
			if at.ExplicitOnly {
				continue
			}
			s := at.Span
			// A variant that cannot apply to this memory pair whatever
			// the shape is left out (as is each such part of a combined
			// reason: 0.27's vec_auto tries gmem_smem and reg).
			if why := strings.TrimPrefix(otherPairPart.ReplaceAllString(at.Reason, ""), "; "); !otherMemoryPair(at) && why != "" {
				r := at.Variant + ": " + why
				parts = append(parts, r)
				rel = append(rel, diag.Related{Span: s, Message: r})
			}
			if !span.IsValid() {
				span = s
			} else if span != s {
				same = false
			}
		}
		if !same || !span.IsValid() {
			span = opSpan(tc)
		}
		msg := fmt.Sprintf("%s lowers only through fallback (scalar, single thread)", tc.Op)
		if len(parts) > 0 {
			msg += ": " + strings.Join(parts, "; ")
		} else if tc.Op == "copy" {
			msg += ": no faster variant copies " + fallbackScopes(tc)
		}
		dg := diag.Warningf(span, "dispatch/fallback-only", "%s", msg)
		dg.Related = rel
		l.out.Diags = append(l.out.Diags, dg)
	case d.Variant == "fallback":
		// Forced: the reference's fallback warns whenever it is picked
		// (copy/fallback.py _emit_fallback, warnings.warn).
		msg := fmt.Sprintf("copy/fallback (scalar single-thread) picked for %s at scope_kind=%s; all faster variants rejected.", fallbackScopes(tc), d.Scope)
		l.out.Diags = append(l.out.Diags, diag.Warningf(opSpan(tc), "dispatch/fallback", "%s", msg))
	case d.Variant != "":
		return
	case notModelled(d):
		// Nothing applies, but because tilels lacks something (a decline
		// of its own, or a bug caught as an exception), not because the
		// reference would reject the program: say what is missing.
		var parts []string
		for _, at := range d.Declined {
			if !at.ExplicitOnly && limitation(at.Reason) {
				parts = append(parts, at.Variant+": "+at.Reason)
			}
		}
		msg := fmt.Sprintf("tilels cannot decide this %s call (not modelled): %s", tc.Op, strings.Join(parts, "; "))
		dg := diag.Warningf(opSpan(tc), "dispatch/not-modelled", "%s", msg)
		dg.Related = relatedFor(d)
		l.out.Diags = append(l.out.Diags, dg)
	case tc.Dispatch != "":
		span := tc.Span
		if e != nil && e.Error != "" && tc.DispatchSpan.IsValid() {
			// A name the release does not register: the name is what to
			// edit (the rename quick fix replaces it).
			span = tc.DispatchSpan
		}
		msg := fmt.Sprintf("dispatch=%q does not apply\n%s", tc.Dispatch, e.TableCompact())
		dg := diag.Errorf(span, "dispatch/forced-variant", "%s", msg)
		dg.Related = relatedFor(d)
		l.out.Diags = append(l.out.Diags, dg)
	default:
		msg := e.Header()
		if e.Error != "" {
			msg += ": " + e.Error
		} else {
			var parts []string
			for _, at := range d.Declined {
				if !at.ExplicitOnly {
					parts = append(parts, at.Variant+": "+at.Reason)
				}
			}
			msg = fmt.Sprintf("no variant of %s applies: %s", tc.Op, strings.Join(parts, "; "))
		}
		dg := diag.Errorf(opSpan(tc), "dispatch/no-variant", "%s", msg)
		dg.Related = relatedFor(d)
		l.out.Diags = append(l.out.Diags, dg)
		l.releaseBugNotes(tc, d)
	}
}

// releaseBugNotes says, next to a call's no-variant error, which of its
// declines are a known bug of the reference release rather than of the
// kernel (Rejection.Note): one dispatch/release-bug note per distinct
// text.
func (l *lowerer) releaseBugNotes(tc *ir.TileCall, d *Decision) {
	var seen []string
	for _, at := range d.Declined {
		if at.Note == "" || slices.Contains(seen, at.Note) {
			continue
		}
		seen = append(seen, at.Note)
		l.out.Diags = append(l.out.Diags, diag.Infof(opSpan(tc), "dispatch/release-bug", "%s: %s", at.Variant, at.Note))
	}
}

// otherMemoryPair reports whether a variant declined only because it does
// not handle the call's pair of storage scopes (ldstmatrix and reg for a
// global -> shared copy): no change of shape, thread count or scope of
// the call makes it apply, so the fallback-only warning leaves it out.
// otherPairPart is the part of a combined reason (0.27's vec_auto tries
// gmem_smem and reg) where a sub-variant declines the memory pair.
var otherPairPart = regexp.MustCompile(`(?:^|; )\w+: unsupported memory scopes src=\S+ dst=\S+; allowed: [^;]*`)

func otherMemoryPair(at Rejection) bool {
	for _, m := range at.Messages {
		if _, why, ok := strings.Cut(m, " — "); ok && strings.HasPrefix(m, "rejected: ") && strings.HasPrefix(why, "unsupported memory scopes ") {
			return true
		}
	}
	return false
}

func relatedFor(d *Decision) []diag.Related {
	var rel []diag.Related
	for _, at := range d.Declined {
		if at.ExplicitOnly && d.Call.Dispatch == "" {
			continue // "requires explicit dispatch=" says nothing about this call
		}
		rel = append(rel, diag.Related{Span: at.Span, Message: at.Variant + ": " + strings.Join(at.Messages, "; ")})
	}
	return rel
}

// limitation reports whether a decline reason is tilels' own limitation
// rather than the reference's verdict: a reason that names tilels ("tilels
// needs constant region bounds"), or an exception that is a bug of tilels
// (a Go runtime error or panic caught in a variant).
func limitation(reason string) bool {
	return strings.Contains(reason, "tilels ") || strings.Contains(reason, "RuntimeError: runtime error:") ||
		strings.Contains(reason, "exception: panic:") || strings.HasPrefix(reason, "panic:")
}

// notModelled reports whether no variant applies to d's call because of a
// limitation of tilels in at least one variant that was tried.
func notModelled(d *Decision) bool {
	for _, at := range d.Declined {
		if !at.ExplicitOnly && limitation(at.Reason) {
			return true
		}
	}
	return false
}

// fallbackScopes prints "src -> dst" storage scopes of a copy's operands.
func fallbackScopes(tc *ir.TileCall) string {
	scope := func(i int) string {
		if i < len(tc.Args) {
			if r, ok := tc.Args[i].(*ir.Region); ok && r != nil && r.Buf != nil {
				return r.Buf.Scope
			}
		}
		return "?"
	}
	return scope(1) + " -> " + scope(0)
}
