package eval

import (
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// The older single-namespace TIRx dialect: the one of the mlc-ai TIRx
// wheel mlc-ai-tirx-cu130 0.0.1b2 (the revision the course's Blackwell GEMM
// assignment pins), before TIRx was brought into apache/tvm (859498dc01,
// 2026-05-18, where the scope-id builders already have fixed parents and
// the tile primitives live in tvm.script.tirx.tile). A kernel is in this
// dialect when its decorator is `@T.prim_func(tirx=True)` (the current
// prim_func has no tirx parameter). In it:
//
//   - the tile primitives are attributes of tvm.script.tirx itself
//     (`Tx.copy`, `Tx.gemm_async`, `Tx.cast(dst, src)`), and their
//     execution scope is that of the innermost enclosing
//     `with Tx.cta():` / `Tx.warpgroup()` / `Tx.warp()` / `Tx.thread()` /
//     `Tx.cluster()` block, not a namespace of the call;
//   - `with Tx.kernel():` opens the device region (T.device_entry());
//   - a scope block may select part of its parent:
//     `with Tx.thread(parent="warp")[pred]:` runs where pred holds, the
//     `if pred:` around a scope block of the current dialect;
//   - a scope id names its parent level: `Tx.cta_id(e, parent="kernel")`
//     is T.cta_id(e), parent="cluster" T.cta_id_in_cluster(e),
//     `Tx.warp_id(e, parent="warpgroup")` T.warp_id_in_wg(e),
//     `Tx.thread_id(e, parent="warp")` T.lane_id(e), and so on; the launch
//     extents follow from the same declarations as in the current dialect;
//   - `Tx.PoolAllocator()` is the shared-memory bump allocator
//     T.SMEMPool() (alloc, move_base_to, commit).
//
// A construct of the dialect tilels cannot give a faithful meaning is
// reported once per kernel as "not modelled: <construct> (older TIRx
// dialect of ...)", a warning; the tile calls it governs are not emitted.

// oldDialectRev names the revision in the not-modelled warnings: the
// mlc-ai wheel for tirx=True kernels, else apache/tvm's first TIRx
// revision, whose kernels open `with Tx.kernel():` without tirx=True and
// whose scope blocks take a positional guard (`with Tx.warp(w == 0):`)
// instead of parent= and a selection; 57c638fc7c (2026-06-02) replaced
// that dialect with the current one.
const (
	OldDialectRev     = "mlc-ai-tirx 0.0.1b2"
	bringupDialectRev = "apache/tvm 859498dc01"
)

// oldDialectState is the evaluator's state for kernels of the older
// dialect: the enclosing scope blocks, innermost last, and the kernel
// already warned about a construct not modelled.
type oldDialectState struct {
	scopes []string
	warned *KernelState
	// of caches InOldDialect for one kernel: isOldDialectDef loops over
	// the def's statements, and every attribute and call of a kernel asks
	// (2.5 % of evaluating a 2,450-line kernel).
	of    *KernelState
	isOld bool
}

// oldScopeV is the value of `Tx.<scope>(parent=...)` and of its
// selection `[...]` in the older dialect: a `with` context.
type oldScopeV struct {
	Base
	Scope  string // "kernel", "cluster", "cta", "warpgroup", "warp", "thread"
	Parent string // parent= or ""
	Guard  ir.Expr
	// Unmodelled names a selection tilels cannot express ("" if none).
	Unmodelled string
}

func (*oldScopeV) TypeName() string { return "ExecScopeFrame" }

// oldScopeNames are the scope builders of the older dialect.
var oldScopeNames = map[string]bool{"kernel": true, "cluster": true, "cta": true, "warpgroup": true, "warp": true, "thread": true}

// isOldDialectDef reports whether def is a kernel of the older dialect:
// decorated `@<mod>.prim_func(tirx=True)` or with a top-level
// `with <mod>.kernel():` statement.
func isOldDialectDef(def *syntax.FunctionDef) bool {
	return hasTirxTrue(def) || opensKernelScope(def)
}

// opensKernelScope reports whether a top-level statement of def is
// `with <mod>.kernel(...):`.
func opensKernelScope(def *syntax.FunctionDef) bool {
	if def == nil {
		return false
	}
	for _, st := range def.Body {
		w, ok := st.(*syntax.With)
		if !ok {
			continue
		}
		for _, it := range w.Items {
			if c, ok := it.Context.(*syntax.Call); ok {
				if a, ok := c.Func.(*syntax.Attribute); ok && a.Attr.Id == "kernel" {
					return true
				}
			}
		}
	}
	return false
}

// hasTirxTrue reports whether def is decorated `@<mod>.prim_func(tirx=True)`.
func hasTirxTrue(def *syntax.FunctionDef) bool {
	if def == nil {
		return false
	}
	for _, d := range def.Decorators {
		c, ok := d.(*syntax.Call)
		if !ok {
			continue
		}
		if a, ok := c.Func.(*syntax.Attribute); !ok || a.Attr.Id != "prim_func" {
			continue
		}
		for _, k := range c.Keywords {
			if k.Name == nil || k.Name.Id != "tirx" {
				continue
			}
			if b, ok := k.Value.(*syntax.Constant); ok && b.Kind == syntax.True {
				return true
			}
		}
	}
	return false
}

// InOldDialect reports whether the kernel being evaluated is written in
// the older dialect.
func (ev *Evaluator) InOldDialect() bool {
	if ev.Kern == nil {
		return false
	}
	if ev.old.of != ev.Kern {
		ev.old.of, ev.old.isOld = ev.Kern, isOldDialectDef(ev.Kern.K.Def)
	}
	return ev.old.isOld
}

// oldNotModelled warns, once per kernel, that construct of the older
// dialect has no faithful meaning in tilels.
func (ev *Evaluator) oldNotModelled(span source.Span, construct string) {
	if ev.Kern == nil || ev.old.warned == ev.Kern {
		return
	}
	ev.old.warned = ev.Kern
	rev := OldDialectRev
	if !hasTirxTrue(ev.Kern.K.Def) {
		rev = bringupDialectRev
	}
	ev.Warnf(span, CodeUnresolved, "not modelled: %s (older TIRx dialect of %s)", construct, rev)
}

// oldScopeIDKinds maps (builder, parent) of the older dialect to the
// scope id of the current one.
var oldScopeIDKinds = map[[2]string]ir.ScopeIDKind{
	{"cta_id", "kernel"}:             ir.CTAID,
	{"cta_id", "cluster"}:            ir.CTAIDInCluster,
	{"cluster_id", "kernel"}:         ir.ClusterID,
	{"warpgroup_id", "cta"}:          ir.WarpgroupID,
	{"warp_id", "cta"}:               ir.WarpID,
	{"warp_id", "warpgroup"}:         ir.WarpIDInWG,
	{"thread_id", "cta"}:             ir.ThreadID,
	{"thread_id", "warpgroup"}:       ir.ThreadIDInWG,
	{"thread_id", "warp"}:            ir.LaneID,
	{"lane_id", "warp"}:              ir.LaneID,
	{"warp_id_in_wg", "warpgroup"}:   ir.WarpIDInWG,
	{"thread_id_in_wg", "warpgroup"}: ir.ThreadIDInWG,
	{"cta_id_in_cluster", "cluster"}: ir.CTAIDInCluster,
}

// oldDialectAttr resolves name on tvm.script.tirx where the two dialects
// differ: inside a kernel of the older dialect, the scope blocks, scope
// ids with parent=, PoolAllocator and the tile primitives; elsewhere the
// scope namespaces tvm.script.tirx re-exports from its tile module
// (`T.thread.cast(...)` is `Tx.thread.cast(...)`). ok is false where
// tAttr's meaning applies.
func (ev *Evaluator) oldDialectAttr(name string, span source.Span) (Value, bool) {
	if !ev.InOldDialect() {
		if sc, ok := ev.libTxScope(name); ok {
			return &TxNSV{Base{span}, sc, name}, true
		}
		return nil, false
	}
	if oldScopeNames[name] {
		scope := name
		return Builtin("T."+name, func(ev *Evaluator, c *Call) Value { return ev.oldScopeCall(scope, c) }), true
	}
	if _, ok := ScopeIDKinds[name]; ok {
		return Builtin("T."+name, func(ev *Evaluator, c *Call) Value { return ev.oldScopeID(name, c) }), true
	}
	if name == "PoolAllocator" {
		fn, _ := ev.libTBuiltin("SMEMPool") // T.PoolAllocator is T.SMEMPool
		return Builtin("T.PoolAllocator", fn), true
	}
	if !ev.libIsTileOp(name) {
		return nil, false
	}
	if name == "copy" {
		return Builtin("Tx.copy", (*Evaluator).oldCopy), true
	}
	builtin, isBuiltin := ev.libTBuiltin(name)
	op, isMath := MathOps[name]
	if !isBuiltin && !isMath {
		return ev.oldTileOp(name, span), true
	}
	// Tx.cast / Tx.max / Tx.sqrt ...: the tile primitive on a buffer or
	// region, the expression builder otherwise.
	return Builtin("Tx."+name, func(ev *Evaluator, c *Call) Value {
		if len(c.Args) > 0 {
			switch c.Args[0].(type) {
			case *BufferV, *RegionV:
				f := ev.oldTileOp(name, c.FnSpan)
				if f == nil {
					return Poison(c.At)
				}
				return ev.libTileCall(f.(*TxOpV), c)
			}
		}
		if isBuiltin {
			return builtin(ev, c)
		}
		return ev.libMathCall(name, op, c)
	}), true
}

// oldTileOp is Tx.<op> of the older dialect: the tile primitive at the
// scope of the innermost enclosing scope block.
func (ev *Evaluator) oldTileOp(name string, span source.Span) Value {
	scope := ""
	for i := len(ev.old.scopes) - 1; i >= 0 && scope == ""; i-- {
		if ev.old.scopes[i] != "kernel" {
			scope = ev.old.scopes[i]
		}
	}
	if scope == "" {
		ev.oldNotModelled(span, "a tile primitive outside a cta/warpgroup/warp/thread scope block")
		return Poison(span)
	}
	return &TxOpV{Base: Base{span}, Op: name, Scope: scope, NameSpan: span}
}

// oldScopeCall is Tx.<scope>(parent=None) of the older dialect, or
// Tx.<scope>(guard) of apache/tvm's first TIRx revision (one predicate:
// the block runs where it holds).
func (ev *Evaluator) oldScopeCall(scope string, c *Call) Value {
	if !ev.CheckArgs(c, scope, 0, "parent") {
		return Poison(c.At)
	}
	sc := &oldScopeV{Base: Base{c.At}, Scope: scope}
	if len(c.Args) == 1 {
		if _, isStr := c.Args[0].(*StrV); !isStr {
			return ev.oldScopeIndex(sc, c.Args, false, c.At)
		}
	}
	if p := c.Arg(0, "parent"); p != nil && !IsNoneV(p) {
		s, ok := p.(*StrV)
		if !ok {
			if IsErr(p) {
				return p
			}
			return ev.Errorf(c.ArgSpan(0, "parent"), CodeType, "parent must be a scope name string, got %s", Describe(p))
		}
		sc.Parent = s.V
	}
	return sc
}

// oldScopeIndex is `Tx.<scope>(...)[sel]`: the block runs only where sel
// holds (a predicate). Other selections (slices of the scope's ids) are
// not modelled.
func (ev *Evaluator) oldScopeIndex(sc *oldScopeV, idx []Value, isTuple bool, span source.Span) Value {
	out := *sc
	out.At = span
	if isTuple || len(idx) != 1 {
		out.Unmodelled = "a multi-dimensional selection of an execution scope"
		return &out
	}
	switch x := idx[0].(type) {
	case *ExprV:
		// A predicate: a comparison, T.ptx.elect_sync(), ... (a constant
		// would select the scope's ids).
		if _, isConst := ir.ConstInt(x.E); !isConst {
			out.Guard = x.E
			if sc.Guard != nil {
				out.Guard = &ir.Binary{Op: ir.And, A: sc.Guard, B: x.E, Span: span}
			}
			return &out
		}
	case *BoolV:
		if x.V {
			return &out
		}
		out.Guard = &ir.IntImm{Value: 0, Type: ir.BoolT, Span: x.At}
		return &out
	case *PoisonV, *UnboundV:
		return x
	}
	out.Unmodelled = "selecting `Tx." + sc.Scope + "()` by " + Clip(ev.Text(idx[0].Span()), 40)
	return &out
}

// execOldScope runs body inside the scope blocks scopes (one `with`
// statement's items, outermost first).
func (ev *Evaluator) execOldScope(fr *frame, scopes []*oldScopeV, body []syntax.Stmt, span source.Span) ctrl {
	if len(scopes) == 0 {
		return ev.execBlock(fr, body)
	}
	sc := scopes[0]
	if sc.Unmodelled != "" {
		ev.oldNotModelled(sc.At, sc.Unmodelled)
		return ctrlNone
	}
	if sc.Scope == "kernel" && ev.Kern != nil && !ev.Kern.DeviceEntry && ev.Emit == &ev.Kern.Host && len(ev.Kern.Host) > 0 {
		// What came before `with Tx.kernel():` is host code, as before
		// T.device_entry().
		ev.Kern.DeviceEntry = true
		ev.Emit = &ev.Kern.Body
	}
	ev.old.scopes = append(ev.old.scopes, sc.Scope)
	defer func() { ev.old.scopes = ev.old.scopes[:len(ev.old.scopes)-1] }()
	if sc.Guard == nil {
		return ev.execOldScope(fr, scopes[1:], body, span)
	}
	if !ev.inKernelTIR(fr) {
		ev.Errorf(sc.At, CodeType, "a selected execution scope is only allowed inside a prim_func body")
		return ctrlNone
	}
	saved := ev.Emit
	var stmts []ir.Stmt
	ev.Emit = &stmts
	c := ev.execOldScope(fr, scopes[1:], body, span)
	ev.Emit = saved
	sp := span
	if len(body) > 0 {
		sp = source.Join(body[0].Span(), body[len(body)-1].Span())
	}
	ev.EmitStmt(&ir.If{Cond: sc.Guard, Then: &ir.Block{Stmts: stmts, Span: sp}, Span: span})
	return c
}

// oldScopeID is Tx.<kind>(extents, parent=...) of the older dialect: the
// scope id of the current dialect that names the same (parent, level)
// pair. Without parent= it is the current builder.
func (ev *Evaluator) oldScopeID(name string, c *Call) Value {
	kind := ScopeIDKinds[name]
	var rest []Kwarg
	parent := ""
	for _, k := range c.Kwargs {
		if k.Name != "parent" {
			rest = append(rest, k)
			continue
		}
		s, ok := k.V.(*StrV)
		if !ok {
			if IsErr(k.V) {
				return k.V
			}
			return ev.Errorf(k.Vspan, CodeType, "parent must be a scope name string, got %s", Describe(k.V))
		}
		parent = s.V
	}
	if parent != "" {
		k, ok := oldScopeIDKinds[[2]string{name, parent}]
		if !ok {
			ev.oldNotModelled(c.At, "`Tx."+name+"(..., parent=\""+parent+"\")`")
			return Poison(c.At)
		}
		kind = k
	}
	c2 := *c
	c2.Kwargs = rest
	return ev.libScopeID(kind, &c2)
}

// isTirxModule reports whether x is a name bound to tvm.script.tirx,
// which has the scope namespaces (T.thread.cast) and, in the older
// dialect, the tile primitives themselves.
func isTirxModule(fr *frame, x syntax.Expr) bool {
	n, ok := x.(*syntax.Name)
	if !ok {
		return false
	}
	v, _ := fr.env.lookup(n.Id)
	m, ok := v.(*ModuleV)
	return ok && m.Path == TPath
}

// oldCopy is Tx.copy(dst, src) of the older dialect. Between tensor
// memory and registers it was a synchronous tcgen05.ld / tcgen05.st (the
// course's README: the compiler "generates the correct TMEM load
// instructions"); the current library has that copy only as copy_async
// (tcgen05_ldst), whose caller issues the wait when it wants the
// synchronous meaning. So it is the current copy_async followed by
// T.ptx.tcgen05.wait.ld / wait.st; any other copy is the current copy.
func (ev *Evaluator) oldCopy(c *Call) Value {
	f, ok := ev.oldTileOp("copy", c.FnSpan).(*TxOpV)
	if !ok {
		return Poison(c.At)
	}
	wait := ""
	if len(c.Args) >= 2 {
		switch dst, src := oldOperandScope(c.Args[0]), oldOperandScope(c.Args[1]); {
		case dst == "local" && src == "tmem":
			wait = "ptx.tcgen05.wait.ld"
		case dst == "tmem" && src == "local":
			wait = "ptx.tcgen05.wait.st"
		}
	}
	if wait == "" {
		return ev.libTileCall(f, c)
	}
	async := *f
	async.Op = "copy_async"
	v := ev.libTileCall(&async, c)
	if !IsErr(v) {
		ev.EmitStmt(&ir.Evaluate{X: &ir.Call{Op: wait, Span: c.At}, Span: c.At})
	}
	return v
}

// oldOperandScope is the storage scope of a buffer or region operand.
func oldOperandScope(v Value) string {
	switch x := v.(type) {
	case *BufferV:
		return x.B.Scope
	case *RegionV:
		if x.R != nil && x.R.Buf != nil {
			return x.R.Buf.Scope
		}
	}
	return ""
}
