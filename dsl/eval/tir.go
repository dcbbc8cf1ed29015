package eval

import (
	"fmt"
	"github.com/tilels/tilels/release"
	"math"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// kernelState is the state of the kernel being evaluated.
type kernelState struct {
	k           *Kernel
	host, body  []ir.Stmt
	deviceEntry bool
	mutable     map[*ir.Var]bool
	params      map[*ir.Var]*ir.Param
	// badLayout marks buffers whose layout= argument failed to evaluate
	// (so a nil Layout there is not layout=None).
	badLayout map[*ir.Buffer]bool
	// layoutSeen dedups Kernel.Layouts by span.
	layoutSeen map[source.Span]bool
	// ignored are expression statements whose value is opaque (calls
	// tilels does not model); one warning summarizes them.
	ignored []source.Span
	// consts are the T.constexpr values of a specialized @T.jit kernel.
	consts map[string]Value
	// sites are the tile calls met (Kernel.Unresolved of a partial kernel).
	sites []UnresolvedCall
}

// evalKernel evaluates a @T.prim_func def into a Kernel. A @T.jit def
// with T.constexpr parameters becomes a JitV, evaluated when specialized.
func (ev *evaluator) evalKernel(fr *frame, def *syntax.FunctionDef, name string, deco *MarkerV) Value {
	if deco.Name == "T.jit" && len(paramNames(def.Params, true)) > 0 {
		j := &JitV{base: base{def.Name.Loc}, Def: def, Name: name, outer: fr, deco: deco}
		ev.jits = append(ev.jits, j)
		return j
	}
	return ev.evalKernelCase(fr, def, name, deco, nil)
}

// evalKernelCase evaluates a kernel def under the case its enclosing
// function calls and consts (the T.constexpr values of a @T.jit kernel,
// unbound ones included) give. A case already evaluated is not evaluated
// again; past the cap a new case is not evaluated.
func (ev *evaluator) evalKernelCase(fr *frame, def *syntax.FunctionDef, name string, deco *MarkerV, consts []Binding) Value {
	cs := caseOf(fr)
	for _, b := range consts {
		if _, ok := b.Value.(*UnboundV); !ok {
			cs = append(cs, b)
		}
	}
	key := CaseString(cs)
	dc := ev.casesOf(def)
	if k, ok := dc.lookup(key); ok {
		ev.made++ // the same kernel again: made all the same
		return &KernelV{base{def.Name.Loc}, k}
	}
	if dc.partial != nil && slices.Contains(dc.partialKeys, key) {
		return &KernelV{base{def.Name.Loc}, dc.partial}
	}
	if ev.fileOut {
		// The file's budget ran out (reported once): no kernel is made
		// from here on.
		return &OpaqueV{base{def.Name.Loc}, name + " (not analysed: the file's evaluation budget ran out)"}
	}
	if len(dc.cases) >= ev.opts.MaxCases {
		if !slices.Contains(dc.capped, key) {
			dc.capped = append(dc.capped, key)
		}
		return &OpaqueV{base{def.Name.Loc}, name + " (case not analysed: case cap)"}
	}
	k := &Kernel{Def: def, Func: &ir.Func{Name: def.Name.Id, Span: def.Loc, NameSpan: def.Name.Loc}}
	if len(cs) > 0 {
		k.Case = cs
	}
	k.CaseSource, k.CaseID = ev.caseSource, ev.caseID
	ks := &kernelState{k: k, mutable: map[*ir.Var]bool{}, params: map[*ir.Var]*ir.Param{}, badLayout: map[*ir.Buffer]bool{}, layoutSeen: map[source.Span]bool{}}
	if len(consts) > 0 {
		ks.consts = map[string]Value{}
		for _, b := range consts {
			ks.consts[b.Name] = b.Value
		}
	}
	// A kernel whose evaluation specializes itself again (a @T.jit body
	// calling its own .specialize) nests like a call: bounded the same way.
	if ev.depth >= maxCallDepth {
		return ev.errorf(def.Name.Loc, CodeBudget, "call depth exceeds %d", maxCallDepth)
	}
	savedKern, savedEmit, savedSink, savedHint, savedDepth, savedTry := ev.kern, ev.emit, ev.sink, ev.hint, ev.depth, ev.tryDepth
	ev.kern, ev.emit, ev.sink, ev.hint, ev.tryDepth = ks, &ks.host, &k.Diags, nil, 0
	ev.depth++
	ev.unit(ev.siteOf(siteKernel, def.Name.Id, def.Name.Loc), func() {
		kfr := &frame{env: newScope(fr.env), tir: true, fn: &FuncV{Name: name}}
		ev.kernelParams(fr, kfr, def, ks, name, deco)
		ev.execBlock(kfr, def.Body)
		if len(k.Unbound) > 0 {
			// A partial kernel: every tile call of its body is unresolved.
			for _, st := range def.Body {
				ev.skippedTileCalls(kfr, st, "")
			}
		}
		if n := len(ks.ignored); n > 0 {
			more := ""
			if n > 1 {
				more = fmt.Sprintf(" (and %d more statement%s in this kernel)", n-1, plural(n-1))
			}
			ev.warnf(ks.ignored[0], CodeUnresolved, "`%s` is not modelled by tilels; statement ignored%s", clip(ev.text(ks.ignored[0]), 60), more)
		}
	})
	ev.kern, ev.emit, ev.sink, ev.hint, ev.depth, ev.tryDepth = savedKern, savedEmit, savedSink, savedHint, savedDepth, savedTry

	host, body := ks.host, ks.body
	if !ks.deviceEntry {
		host, body = nil, ks.host
	}
	k.Func.Host = &ir.Block{Stmts: host, Span: def.Loc}
	k.Func.Body = &ir.Block{Stmts: body, Span: def.Loc}
	if len(k.Unbound) == 0 {
		ev.made++
		dc.cases = append(dc.cases, k)
		dc.keys = append(dc.keys, key)
		if ev.opts.OnKernel != nil {
			ev.opts.OnKernel(k)
		}
	} else {
		if dc.partial == nil {
			dc.partial = k
			k.Unresolved = ks.unresolved()
		}
		dc.partialKeys = append(dc.partialKeys, key)
	}
	return &KernelV{base{def.Name.Loc}, k}
}

// kernelParams binds the kernel's parameters: handles and scalars become
// ir.Params; T.Buffer annotations buffer parameters; T.constexpr
// parameters (@T.jit) Python values from bindings or defaults.
func (ev *evaluator) kernelParams(outer, kfr *frame, def *syntax.FunctionDef, ks *kernelState, name string, deco *MarkerV) {
	ps := def.Params
	all := append(append(append([]*syntax.Param(nil), ps.Posonly...), ps.Args...), ps.Kwonly...)
	fn := &FuncV{base: base{def.Name.Loc}, Name: name, Def: def, Params: ps, Env: outer.env, Defaults: map[*syntax.Param]Value{}}
	// @T.jit: T.constexpr parameters are bound first, so the other
	// parameters' annotations (T.Buffer((M, N), ...)) can use them.
	anns := make([]Value, len(all))
	for i, p := range all {
		if !isConstexprAnnotation(p.Annotation) {
			continue
		}
		if m, ok := ev.expr(outer, p.Annotation).(*MarkerV); ok && m.Name == "T.constexpr" {
			anns[i] = m
			var v Value
			if c, ok := ks.consts[p.Name.Id]; ok {
				v = c
			} else if b, ok := ev.opts.Bindings[name][p.Name.Id]; ok {
				v = b
			} else if p.Default != nil {
				v = ev.expr(outer, p.Default)
			} else {
				v = &UnboundV{base{p.Name.Loc}, ev.originFor(fn, p)}
			}
			kfr.env.set(p.Name.Id, v)
		}
	}
	for i, p := range all {
		pname := p.Name.Id
		var ann Value = &MarkerV{base: base{p.Loc}, Name: "T.handle"}
		if inner, ok := optionalAnnotation(p.Annotation); ok {
			// T.Optional (bind_optional.go): given None to .specialize,
			// the parameter is absent and its name None.
			if v, absent := ks.consts[pname]; absent {
				kfr.env.set(pname, v)
				continue
			}
			ann = ev.expr(kfr, inner)
		} else if anns[i] != nil {
			ann = anns[i]
		} else if p.Annotation != nil {
			ann = ev.expr(kfr, p.Annotation)
		}
		switch a := ann.(type) {
		case *MarkerV:
			if a.Name == "T.constexpr" {
				continue // bound above
			}
			if a.Name != "T.handle" {
				ev.errorf(p.Annotation.Span(), CodeType, "unsupported parameter annotation %s", a.Name)
			}
			vr := &ir.Var{Name: pname, Type: ir.HandleT, Span: p.Name.Loc}
			prm := &ir.Param{Var: vr, Span: p.Loc}
			ks.k.Func.Params = append(ks.k.Func.Params, prm)
			ks.params[vr] = prm
			kfr.env.set(pname, &ExprV{base: base{p.Name.Loc}, E: vr})
		case *DTypeV:
			vr := &ir.Var{Name: pname, Type: a.DT, Span: p.Name.Loc}
			ks.k.Func.Params = append(ks.k.Func.Params, &ir.Param{Var: vr, Span: p.Loc})
			kfr.env.set(pname, &ExprV{base: base{p.Name.Loc}, E: vr})
		case *AnnotV:
			vr := &ir.Var{Name: pname, Type: ir.HandleT, Span: p.Name.Loc}
			buf := ev.newBuffer(a, pname, vr, ir.ParamBuffer, p.Loc)
			if buf == nil {
				kfr.env.set(pname, unbuiltBuffer(a.Shape, pname, p.Loc))
				continue
			}
			prm := &ir.Param{Var: vr, Buf: buf, Span: p.Loc}
			ks.k.Func.Params = append(ks.k.Func.Params, prm)
			ks.params[vr] = prm
			ev.addBufferSite(buf, p.Name.Loc, p.Loc, source.NoSpan)
			kfr.env.set(pname, &BufferV{base{p.Name.Loc}, buf})
		default:
			if !isErr(ann) {
				ev.errorf(p.Annotation.Span(), CodeType, "unsupported parameter annotation %s", describe(ann))
			} else {
				ev.needConcrete(ann, p.Annotation.Span(), "a parameter annotation")
			}
			kfr.env.set(pname, poison(p.Loc))
		}
	}
}

func isConstexprAnnotation(e syntax.Expr) bool {
	switch x := e.(type) {
	case *syntax.Attribute:
		return x.Attr.Id == "constexpr"
	case *syntax.Name:
		return x.Id == "constexpr"
	}
	return false
}

func (ev *evaluator) newBuffer(a *AnnotV, name string, data *ir.Var, kind ir.BufferKind, span source.Span) *ir.Buffer {
	shape, shapeExpr, ok := ev.paramShapeArg(a.Shape, a.Shape.Span(), kind == ir.ParamBuffer)
	if !ok {
		return nil
	}
	scope := a.Scope
	if scope == "" {
		scope = "global"
	}
	buf := &ir.Buffer{Name: name, Data: data, Shape: shape, ShapeExpr: shapeExpr, Dtype: a.DT, Scope: scope, Kind: kind, Span: span}
	if shapeExpr != nil {
		return ev.runtimeShapeBuffer(buf, a.Layout, span)
	}
	buf.Layout = ev.layoutArg(a.Layout, span, buf)
	return buf
}

func (ev *evaluator) addBufferSite(b *ir.Buffer, nameSpan, declSpan, layoutSpan source.Span) {
	if ev.kern != nil {
		ev.kern.k.Buffers = append(ev.kern.k.Buffers, BufferSite{Buf: b, NameSpan: nameSpan, DeclSpan: declSpan, LayoutSpan: layoutSpan})
	}
}

// requireKernel reports a device-only construct used outside a kernel body.
func (ev *evaluator) requireKernel(c *call, what string) bool {
	if ev.kern != nil && ev.emit != nil {
		return true
	}
	ev.errorf(c.span, CodeType, "%s is only allowed inside a prim_func body", what)
	return false
}

// hintNames returns the target names of the assignment whose value is c.
func (ev *evaluator) hintNames(c *call) ([]string, []source.Span) {
	if ev.hint != nil && c.node != nil && ev.hint.call == c.node {
		return ev.hint.names, ev.hint.spans
	}
	return nil, nil
}

func (ev *evaluator) hintName(c *call, def string) (string, source.Span) {
	names, spans := ev.hintNames(c)
	if len(names) == 1 {
		return names[0], spans[0]
	}
	return def, source.NoSpan
}

// ---- the T namespace ----

var dtypeCtorNames = []string{
	"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2",
	"float8_e8m0fnu", "float4_e2m1fn",
	"f16", "f32", "f64", "bf16", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
}

func tAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	marker := func(n string) (Value, bool) { return &MarkerV{base: base{span}, Name: "T." + n}, true }
	switch name {
	case "prim_func", "jit", "inline", "macro", "handle", "let", "Buffer", "constexpr":
		return marker(name)
	case "TileLayout", "S", "R", "ComposeLayout", "SwizzleLayout", "Iter", "Axis":
		return layoutModuleAttr(ev, name, span)
	case "cuda", "ptx", "nvshmem", "nki":
		return &IntrinsicV{base{span}, name}, true
	}
	for _, d := range dtypeCtorNames {
		if d == name {
			dt, _ := parseDType(name)
			return &DTypeV{base: base{span}, DT: dt, Ctor: true}, true
		}
	}
	switch name {
	case "func_attr", "attr", "hint", "annotate", "block_attr", "sblock_attr", "reads", "writes", "where", "init":
		// Metadata and scheduling annotations: no effect on tile lowering.
		return builtin("T."+name, func(ev *evaluator, c *call) Value { return &NoneV{base{c.span}} }), true
	}
	if name == "call_packed" {
		// A host-side runtime call (T.call_packed("runtime.cuTensorMapEncodeTiled",
		// map, ...)): an opaque extern call that changes no buffer, layout or
		// tile call; tilels' launcher does not print it.
		return builtin("T."+name, func(ev *evaluator, c *call) Value { return &NoneV{base{c.span}} }), true
	}
	if fn, ok := tBuiltins[name]; ok {
		return &BuiltinV{base{span}, "T." + name, fn}, true
	}
	if k, ok := scopeIDKinds[name]; ok {
		return builtin("T."+name, func(ev *evaluator, c *call) Value { return ev.scopeID(k, c) }), true
	}
	if op, ok := mathOps[name]; ok {
		return builtin("T."+name, func(ev *evaluator, c *call) Value { return ev.mathCall(name, op, c) }), true
	}
	return builderIRAttr(ev, name, span) // lib_builder_ir.go
}

var scopeIDKinds = map[string]ir.ScopeIDKind{
	"cta_id": ir.CTAID, "cluster_id": ir.ClusterID, "cta_id_in_cluster": ir.CTAIDInCluster,
	"thread_id": ir.ThreadID, "warp_id": ir.WarpID, "warpgroup_id": ir.WarpgroupID,
	"warp_id_in_wg": ir.WarpIDInWG, "lane_id": ir.LaneID, "thread_id_in_wg": ir.ThreadIDInWG,
}

var tBuiltins map[string]func(ev *evaluator, c *call) Value

func init() {
	tBuiltins = map[string]func(ev *evaluator, c *call) Value{
		"device_entry":            (*evaluator).tDeviceEntry,
		"match_buffer":            (*evaluator).tMatchBuffer,
		"alloc_buffer":            func(ev *evaluator, c *call) Value { return ev.tAlloc(c, "T.alloc_buffer", "") },
		"alloc_shared":            func(ev *evaluator, c *call) Value { return ev.tAlloc(c, "T.alloc_shared", "shared") },
		"smem":                    func(ev *evaluator, c *call) Value { return ev.tAlloc(c, "T.smem", "shared") },
		"alloc_local":             func(ev *evaluator, c *call) Value { return ev.tAlloc(c, "T.alloc_local", "local") },
		"tmem":                    func(ev *evaluator, c *call) Value { return ev.tAlloc(c, "T.tmem", "tmem") },
		"alloc_tcgen05_ldst_frag": (*evaluator).tAllocTcgen05Frag,
		"decl_buffer":             (*evaluator).tDeclBuffer,
		"local_scalar":            func(ev *evaluator, c *call) Value { return ev.tScalar(c, "T.local_scalar", "local") },
		"shared_scalar":           func(ev *evaluator, c *call) Value { return ev.tScalar(c, "T.shared_scalar", "shared") },
		"alloc_scalar":            func(ev *evaluator, c *call) Value { return ev.tScalar(c, "T.alloc_scalar", "") },
		"decl_scalar":             (*evaluator).tDeclScalar,
		"meta_class":              tMetaClass,
		"meta_var":                tMetaVar,
		"address_of":              (*evaluator).tAddressOf,
		"cast":                    (*evaluator).tCast,
		"evaluate":                (*evaluator).tEvaluate,
		"Bind":                    (*evaluator).tBind,
		"bind":                    (*evaluator).tBind,
		"serial":                  func(ev *evaluator, c *call) Value { return ev.loopCall("T.serial", ir.Serial, c) },
		"unroll":                  func(ev *evaluator, c *call) Value { return ev.loopCall("T.unroll", ir.Unrolled, c) },
		"vectorized":              func(ev *evaluator, c *call) Value { return ev.loopCall("T.vectorized", ir.Vectorized, c) },
		"grid":                    (*evaluator).tGrid,
		"if_then_else":            (*evaluator).tIfThenElse,
		"Select":                  (*evaluator).tIfThenElse,
		"infinity":                func(ev *evaluator, c *call) Value { return ev.tLimit(c, "infinity") },
		"max_value":               func(ev *evaluator, c *call) Value { return ev.tLimit(c, "max_value") },
		"min_value":               func(ev *evaluator, c *call) Value { return ev.tLimit(c, "min_value") },
		"reinterpret":             (*evaluator).tReinterpret,
		"likely":                  func(ev *evaluator, c *call) Value { return orPoison(c.arg(0, "cond"), c.span) },
		"tvm_warp_shuffle":        func(ev *evaluator, c *call) Value { return ev.tWarpShuffle(c, "tvm_warp_shuffle") },
		"tvm_warp_shuffle_up":     func(ev *evaluator, c *call) Value { return ev.tWarpShuffle(c, "tvm_warp_shuffle_up") },
		"tvm_warp_shuffle_down":   func(ev *evaluator, c *call) Value { return ev.tWarpShuffle(c, "tvm_warp_shuffle_down") },
		"static_assert":           (*evaluator).tStaticAssert,
		"ceildiv":                 (*evaluator).tCeilDiv,
		"SMEMPool":                (*evaluator).tSMEMPool,
		"TMEMPool":                (*evaluator).tTMEMPool, // lib_alloc_pool.go
		"FloatImm":                (*evaluator).tImm,
		"IntImm":                  (*evaluator).tImm,
		"tvm_storage_sync": func(ev *evaluator, c *call) Value {
			// T.tvm_storage_sync("shared") is __syncthreads().
			if s, ok := c.arg(0, "storage_scope").(*StrV); ok && s.V == "shared" {
				return &ExprV{base: base{c.span}, E: &ir.Call{Op: ir.OpCTASync, Span: c.span}}
			}
			return &OpaqueV{base{c.span}, "T.tvm_storage_sync(...)"}
		},
	}
}

// tImm is T.FloatImm(dtype, value) / T.IntImm(dtype, value): the constant
// value of that dtype, as T.<dtype>(value) builds it.
func (ev *evaluator) tImm(c *call) Value {
	if !ev.checkArgs(c, "Imm", 2, "dtype", "value", "span") {
		return poison(c.span)
	}
	dt, ok := ev.dtypeOf(c.args[0], c.argSpans[0])
	if !ok {
		return poison(c.span)
	}
	return ev.castTo(c.args[1], dt, c.argSpans[1], c.span)
}

// tMetaVar is T.meta_var(x): x itself, inlined wherever it is used.
func tMetaVar(ev *evaluator, c *call) Value {
	v := c.arg(0, "value")
	if ex, ok := v.(*ExprV); ok {
		return &ExprV{base: ex.base, E: ex.E, inline: true}
	}
	return orPoison(v, c.span)
}

// tDeviceEntry switches statement emission from the host block to the
// device body.
func (ev *evaluator) tDeviceEntry(c *call) Value {
	if !ev.requireKernel(c, "T.device_entry()") {
		return poison(c.span)
	}
	ks := ev.kern
	switch {
	case ks.deviceEntry:
		return ev.errorf(c.span, CodeType, "T.device_entry() may appear only once per kernel")
	case ev.emit != &ks.host:
		return ev.errorf(c.span, CodeType, "T.device_entry() must be a top-level statement of the kernel body")
	}
	ks.deviceEntry = true
	ev.emit = &ks.body
	return &NoneV{base{c.span}}
}

// shapeArg converts a static shape: an int or a sequence of ints.
func (ev *evaluator) shapeArg(v Value, span source.Span) ([]int64, bool) {
	if v == nil {
		ev.errorf(span, CodeType, "missing buffer shape")
		return nil, false
	}
	if isErr(v) {
		ev.needConcrete(v, span, "a buffer shape")
		return nil, false
	}
	var elts []Value
	if _, ok := toInt(v); ok {
		elts = []Value{v}
	} else if isSeq(v) {
		elts = seqElts(v)
	} else {
		ev.errorf(span, CodeType, "buffer shape must be an integer or a tuple of integers, got %s", describe(v))
		return nil, false
	}
	out := make([]int64, len(elts))
	for i, e := range elts {
		n, ok := toInt(e)
		if !ok {
			if isErr(e) {
				ev.needConcrete(e, span, "a buffer shape")
				return nil, false
			}
			if ex, isExpr := e.(*ExprV); isExpr {
				ev.warnf(span, CodeUnresolved, "not modelled: dynamic buffer dimension `%s` (dimension %d of this shape); tilels models a runtime extent only as the outermost dimension of a parameter buffer, over scalar parameters, so the tile calls on this buffer are not dispatched", clip(ExprString(ex.E), 60), i)
				return nil, false
			}
			ev.errorf(span, CodeType, "buffer shape must be a tuple of integers, got %s", describe(v))
			return nil, false
		}
		if n <= 0 {
			ev.errorf(span, CodeType, "buffer shape must be positive, got %d in dimension %d", n, i)
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// layoutArg converts a layout= argument for buf (nil means absent, i.e.
// "default"). It also checks that the layout covers the buffer's shape.
func (ev *evaluator) layoutArg(v Value, span source.Span, buf *ir.Buffer) layout.Layout {
	scopeHasNoDefault := strings.HasPrefix(buf.Scope, "trn.")
	if v == nil {
		if scopeHasNoDefault {
			return nil
		}
		return layout.RowMajor(buf.Shape...)
	}
	switch x := v.(type) {
	case *NoneV:
		return nil
	case *StrV:
		if x.V == "default" {
			if scopeHasNoDefault {
				return nil
			}
			return layout.RowMajor(buf.Shape...)
		}
		if scopeHasNoDefault { // a Trainium annotation ("PF"): lib_trn_layout.go
			if l, msg := trainiumLayout(x.V, buf.Shape, buf.Scope == "trn.psum"); msg == "" {
				return l
			} else {
				ev.errorf(span, CodeType, "%s", msg)
				return nil
			}
		}
		ev.errorf(span, CodeType, "unsupported layout string %s", Repr(x))
	case *LayoutV:
		ev.checkLayoutCovers(x.L, span, buf)
		return x.L
	case *SpecV:
		ev.errorf(span, CodeType, "layout must be a TileLayout, got a layout spec; wrap it in TileLayout(...)")
	default:
		if isErr(v) {
			ev.needConcrete(v, span, "a layout")
		} else {
			ev.errorf(span, CodeType, "layout must be a Layout, \"default\" or None, got %s", describe(v))
		}
	}
	if ev.kern != nil {
		ev.kern.badLayout[buf] = true
	}
	return nil
}

func (ev *evaluator) checkLayoutCovers(l layout.Layout, span source.Span, buf *ir.Buffer) {
	if c, ok := l.(*layout.ComposeLayout); ok && layout.IsTrivial(c.Tile) {
		return // a bare swizzle applies to any shape
	}
	size := layout.Size(l, nil)
	n := buf.NumElements()
	if size != n {
		ev.warnf(span, CodeShapeMismatch, "layout %s covers %d elements but buffer `%s` of shape %s has %d",
			l.String(), size, buf.Name, shapeStr(buf.Shape), n)
	}
}

func shapeStr(s []int64) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprint(x)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (ev *evaluator) noteLayout(v Value) {
	if ev.kern == nil {
		return
	}
	if l, ok := v.(*LayoutV); ok && len(ev.kern.k.Layouts) < maxLayoutSites && l.span.IsValid() && !ev.kern.layoutSeen[l.span] {
		ev.kern.layoutSeen[l.span] = true
		ev.kern.k.Layouts = append(ev.kern.k.Layouts, LayoutSite{Span: l.span, Layout: l.L})
	}
}

func (ev *evaluator) tMatchBuffer(c *call) Value {
	if !ev.requireKernel(c, "T.match_buffer") ||
		!ev.checkArgs(c, "match_buffer", 2, "param", "shape", "dtype", "data", "strides", "elem_offset", "scope", "align", "offset_factor", "layout") {
		return poison(c.span)
	}
	p := c.arg(0, "param")
	pe, ok := p.(*ExprV)
	var prm *ir.Param
	if ok {
		if vr, ok := pe.E.(*ir.Var); ok {
			prm = ev.kern.params[vr]
		}
	}
	if prm == nil {
		if isErr(p) {
			return ev.needConcrete(p, c.argSpan(0, "param"), "T.match_buffer's parameter")
		}
		return ev.errorf(c.argSpan(0, "param"), CodeType, "T.match_buffer expects a T.handle parameter of the kernel, got %s", describe(p))
	}
	if prm.Buf != nil {
		return ev.errorf(c.argSpan(0, "param"), CodeType, "parameter `%s` is already bound to buffer `%s`", prm.Var.Name, prm.Buf.Name)
	}
	buf := ev.declBuffer(c, ir.ParamBuffer, "global", prm.Var.Name)
	if buf == nil {
		name := prm.Var.Name
		if names, _ := ev.hintNames(c); len(names) == 1 {
			name = names[0]
		}
		return unbuiltBuffer(c.arg(1, "shape"), name, c.span)
	}
	buf.Data = prm.Var
	prm.Buf = buf
	return &BufferV{base{c.span}, buf}
}

// declBuffer builds the buffer of a match_buffer / alloc_buffer /
// decl_buffer call (shape, dtype, scope, layout, offsets).
func (ev *evaluator) declBuffer(c *call, kind ir.BufferKind, defScope, defName string) *ir.Buffer {
	shapeIdx := 0
	if kind == ir.ParamBuffer {
		shapeIdx = 1
	}
	shape, shapeExpr, ok := ev.paramShapeArg(c.arg(shapeIdx, "shape"), c.argSpan(shapeIdx, "shape"), kind == ir.ParamBuffer)
	if !ok {
		return nil
	}
	dt := ir.Float32
	if d := c.arg(shapeIdx+1, "dtype"); d != nil {
		if dt, ok = ev.dtypeOf(d, c.argSpan(shapeIdx+1, "dtype")); !ok {
			return nil
		}
	}
	scope := defScope
	if sv := c.arg(6, "scope"); sv != nil {
		str, ok := ev.strArg(sv, c.argSpan(6, "scope"), "scope")
		if !ok {
			return nil
		}
		scope = str
	}
	name, nameSpan := ev.hintName(c, defName)
	buf := &ir.Buffer{Name: name, Shape: shape, ShapeExpr: shapeExpr, Dtype: dt, Scope: scope, Kind: kind, Span: c.span}
	lv := c.arg(9, "layout")
	layoutSpan := source.NoSpan
	if lv != nil {
		layoutSpan = c.argSpan(9, "layout")
		ev.noteLayout(lv)
	}
	if shapeExpr != nil {
		if ev.runtimeShapeBuffer(buf, lv, layoutSpan) == nil || !ev.runtimeShapePlain(c, buf) {
			return nil
		}
	} else {
		buf.Layout = ev.layoutArg(lv, layoutSpan, buf)
	}
	if eo := c.arg(-1, "elem_offset"); eo != nil {
		if x := dynamicOffset(eo); x != nil && kind == ir.DeclBuffer {
			buf.ElemOffsetExpr = x // lib_builder_ir.go
		} else if _, none := eo.(*NoneV); !none {
			n, ok := ev.intArg(eo, c.argSpan(-1, "elem_offset"), "elem_offset")
			if !ok {
				return nil
			}
			buf.ElemOffset = n
		}
	}
	if bo := c.arg(-1, "byte_offset"); bo != nil {
		if x := dynamicOffset(bo); x != nil && kind == ir.DeclBuffer {
			buf.ElemOffsetExpr = byteToElemOffset(x, dt, c.span) // lib_builder_ir.go
		} else if _, none := bo.(*NoneV); !none {
			n, ok := ev.intArg(bo, c.argSpan(-1, "byte_offset"), "byte_offset")
			if !ok {
				return nil
			}
			if n*8%int64(dt.Bits) != 0 {
				ev.errorf(c.argSpan(-1, "byte_offset"), CodeType, "byte_offset %d is not a multiple of the %s element size", n, dt)
				return nil
			}
			buf.ElemOffset = n * 8 / int64(dt.Bits)
		}
	}
	if aa := c.arg(-1, "allocated_addr"); aa != nil {
		if _, none := aa.(*NoneV); !none {
			if e, ok := ev.toIR(aa, ir.DataType{}); ok {
				buf.AllocatedAddr = e
			} else {
				buf.AllocatedAddr = &ir.Var{Name: "allocated_addr", Type: ir.Int32, Span: aa.Span()}
			}
		}
	}
	ev.addBufferSite(buf, nameSpan, c.span, layoutSpan)
	return buf
}

func (ev *evaluator) tAlloc(c *call, fname, fixedScope string) Value {
	if !ev.requireKernel(c, fname) ||
		!ev.checkArgs(c, fname, 1, "shape", "dtype", "data", "strides", "elem_offset", "byte_offset", "scope", "align", "offset_factor", "layout", "allocated_addr", "annotations") {
		return poison(c.span)
	}
	scope := fixedScope
	if scope == "" {
		scope = "global"
	}
	buf := ev.declBuffer(c, ir.AllocBuffer, scope, "buf")
	if buf == nil {
		return poison(c.span)
	}
	buf.Data = &ir.Var{Name: buf.Name, Type: ir.HandleT, Span: buf.Span}
	ev.emitStmt(&ir.Alloc{Buf: buf, Span: c.span})
	return &BufferV{base{c.span}, buf}
}

// tScalar is T.local_scalar(dtype="float32") (T.shared_scalar,
// T.alloc_scalar(dtype, scope="global")): a one-element buffer whose value
// is its element buf[0] (builder/ir.py alloc_scalar). Assigning to a name
// or attribute holding it stores into the buffer (stmt.go storeScalar).
func (ev *evaluator) tScalar(c *call, fname, fixedScope string) Value {
	params := []string{"dtype"}
	if fixedScope == "" {
		params = append(params, "scope")
	}
	if !ev.requireKernel(c, fname) || !ev.checkArgs(c, fname, 0, params...) {
		return poison(c.span)
	}
	dtype := c.arg(0, "dtype")
	if dtype == nil {
		dtype = &StrV{base{c.span}, "float32"}
	}
	scope := Value(&StrV{base{c.span}, fixedScope})
	if fixedScope == "" {
		scope = &StrV{base{c.span}, "global"}
		if s := c.arg(1, "scope"); s != nil {
			scope = s
		}
	}
	alloc := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{&TupleV{base{c.span}, []Value{&IntV{base{c.span}, 1}}}, dtype},
		argSpans: []source.Span{c.span, c.argSpan(0, "dtype")},
		kwargs:   []kwarg{{"scope", scope, c.span, c.span}}}
	return scalarOf(ev.tAlloc(alloc, fname, ""), c.span)
}

// tDeclScalar is T.decl_scalar(dtype, data, scope, elem_offset=None,
// byte_offset=None): a one-element view of data, valued as its element.
func (ev *evaluator) tDeclScalar(c *call) Value {
	if !ev.requireKernel(c, "T.decl_scalar") || !ev.checkArgs(c, "decl_scalar", 3, "dtype", "data", "scope", "elem_offset", "byte_offset") {
		return poison(c.span)
	}
	decl := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{&TupleV{base{c.span}, []Value{&IntV{base{c.span}, 1}}}, c.arg(0, "dtype"), c.arg(1, "data")},
		argSpans: []source.Span{c.span, c.argSpan(0, "dtype"), c.argSpan(1, "data")},
		kwargs:   []kwarg{{"scope", c.arg(2, "scope"), c.argSpan(2, "scope"), c.argSpan(2, "scope")}}}
	for i, k := range []string{"elem_offset", "byte_offset"} {
		if v := c.arg(3+i, k); v != nil {
			decl.kwargs = append(decl.kwargs, kwarg{k, v, c.argSpan(3+i, k), c.argSpan(3+i, k)})
		}
	}
	return scalarOf(ev.tDeclBuffer(decl), c.span)
}

// scalarOf is the element buf[0] of a one-element buffer value.
func scalarOf(v Value, span source.Span) Value {
	b, ok := v.(*BufferV)
	if !ok {
		return v
	}
	// fresh: `x = T.local_scalar(...)` names the buffer and binds x to its
	// element (parser.py bind_assign_value, scalar_wrapper), no copy.
	return &ExprV{base: base{span}, E: &ir.Load{Buf: b.B, Indices: []ir.Expr{&ir.IntImm{Value: 0, Type: ir.Int32, Span: span}}, Span: span}, fresh: true}
}

// scalarBuffer returns the buffer a name or attribute holding v stores
// into when assigned in TIR code (parser.py visit_assign): a one-element
// 1-D buffer, or an element load of one (a T.local_scalar).
func scalarBuffer(v Value) *ir.Buffer {
	var b *ir.Buffer
	switch x := v.(type) {
	case *BufferV:
		b = x.B
	case *ExprV:
		if ld, ok := x.E.(*ir.Load); ok {
			b = ld.Buf
		}
	}
	if b != nil && len(b.Shape) == 1 && b.Shape[0] == 1 {
		return b
	}
	return nil
}

// tMetaClass is the T.meta_class class decorator: instances are meta
// values inside kernels, which is how tilels treats every instance, so the
// class is returned as is (class.go accepts it as a modelled decorator).
func tMetaClass(ev *evaluator, c *call) Value {
	if len(c.args) != 1 {
		return ev.errorf(c.span, CodeType, "T.meta_class takes 1 argument (%d given)", len(c.args))
	}
	return c.args[0]
}

func (ev *evaluator) tDeclBuffer(c *call) Value {
	if !ev.requireKernel(c, "T.decl_buffer") ||
		!ev.checkArgs(c, "decl_buffer", 1, "shape", "dtype", "data", "strides", "elem_offset", "byte_offset", "scope", "align", "offset_factor", "layout", "allocated_addr") {
		return poison(c.span)
	}
	data := c.arg(2, "data")
	if data == nil {
		return ev.tAlloc(c, "T.decl_buffer", "")
	}
	if _, none := data.(*NoneV); none {
		return ev.tAlloc(c, "T.decl_buffer", "")
	}
	buf := ev.declBuffer(c, ir.DeclBuffer, "global", "buf")
	if buf == nil {
		return poison(c.span)
	}
	switch d := data.(type) {
	case *ExprV:
		switch x := d.E.(type) {
		case *ir.BufferData:
			buf.Base = x.Buf
			buf.Data = x.Buf.Data
		case *ir.Var:
			buf.Data = x
			if prm := ev.kern.params[x]; prm != nil {
				buf.Base = prm.Buf
			}
		default:
			if exprType(d.E) != ir.HandleT {
				return ev.errorf(c.argSpan(2, "data"), CodeType, "decl_buffer data must be a buffer's .data or a handle, got `%s`", ExprString(d.E))
			}
			// A pointer expression (T.reinterpret(PointerType(...), x)):
			// bound to a handle variable the buffer sits on, as TVMScript
			// binds a pointer-typed value.
			vr := &ir.Var{Name: buf.Name + "_ptr", Type: ir.HandleT, Span: d.span}
			ev.emitStmt(&ir.Let{Var: vr, Value: d.E, Span: d.span})
			buf.Data = vr
		}
	case *BufferV:
		buf.Base, buf.Data = d.B, d.B.Data
	default:
		if isErr(data) {
			return ev.needConcrete(data, c.argSpan(2, "data"), "decl_buffer's data")
		}
		return ev.errorf(c.argSpan(2, "data"), CodeType, "decl_buffer data must be a buffer's .data, got %s", describe(data))
	}
	// Without scope=, a view has the storage scope of its data pointer (TVM
	// derives Buffer.scope() from the pointer type's storage scope), so a
	// view of a shared.dyn arena is shared.dyn, not global.
	if c.arg(6, "scope") == nil && buf.Base != nil {
		buf.Scope = buf.Base.Scope
	}
	ev.emitStmt(&ir.Decl{Buf: buf, Span: c.span})
	return &BufferV{base{c.span}, buf}
}

// ---- scope ids ----

func (ev *evaluator) scopeID(kind ir.ScopeIDKind, c *call) Value {
	fname := "T." + string(kind)
	if !ev.requireKernel(c, fname) || !ev.checkArgs(c, string(kind), 0, "extents", "preferred", "dtype") || !ev.scopeIDDtype(c, fname) {
		return poison(c.span)
	}
	var extents []int64
	var dynamic []ir.Expr // runtime extents (scopeid_dynamic.go)
	unresolved := false
	n := 1
	if ext := c.arg(0, "extents"); ext != nil {
		if _, none := ext.(*NoneV); !none {
			if d, ok := ev.dynamicExtents(ext); ok {
				dynamic, n = d, len(d)
				ext = &NoneV{base{c.span}}
			}
		}
		if _, none := ext.(*NoneV); !none {
			es, ok := ev.intsArg(ext, c.argSpan(0, "extents"), fname+" extents")
			if !ok {
				// A value tilels does not model (reported): the ids
				// still exist, their extents are unknown (the dispatch
				// pass says what that leaves undecided).
				k, unres := unresolvedExtents(ext)
				if !unres {
					return poison(c.span)
				}
				unresolved, n = true, k
			} else if len(es) == 0 || len(es) > 3 {
				return ev.errorf(c.argSpan(0, "extents"), CodeType, "%s takes 1 to 3 extents, got %d", fname, len(es))
			} else {
				for _, e := range es {
					if e <= 0 {
						return ev.errorf(c.argSpan(0, "extents"), CodeType, "%s extent must be positive, got %d", fname, e)
					}
				}
				extents, n = es, len(es)
			}
		}
	}
	names, spans := ev.hintNames(c)
	vars := make([]*ir.Var, n)
	for i := range vars {
		name, sp := string(kind), c.span
		switch {
		case len(names) == n:
			name, sp = names[i], spans[i]
		case len(names) == 1 && n > 1:
			name, sp = fmt.Sprintf("%s_%d", names[0], i), spans[0]
		case n > 1:
			name = fmt.Sprintf("%s_%d", kind, i)
		}
		vars[i] = &ir.Var{Name: name, Type: ir.Int32, Span: sp}
	}
	ev.emitStmt(&ir.ScopeID{Kind: kind, Vars: vars, Extents: extents, Span: c.span, Dynamic: dynamic, Unresolved: unresolved})
	if n == 1 {
		return &ExprV{base: base{c.span}, E: vars[0], fresh: true}
	}
	out := make([]Value, n)
	for i, v := range vars {
		out[i] = &ExprV{base: base{v.Span}, E: v, fresh: true}
	}
	return &ListV{base{c.span}, out}
}

// ---- loops ----

func (ev *evaluator) loopCall(what string, kind ir.ForKind, c *call) Value {
	var args []Value
	for i, name := range []string{"start", "stop"} {
		if v := c.arg(i, name); v != nil {
			if _, none := v.(*NoneV); !none {
				args = append(args, v)
			}
		}
	}
	if step, ok := c.kw("step"); ok {
		if n, ok := toInt(step); !ok || n != 1 {
			if _, none := step.(*NoneV); !none {
				return ev.errorf(step.Span(), CodeType, "%s step must be 1", what)
			}
		}
	}
	if len(args) == 0 || len(c.args) > 2 {
		return ev.errorf(c.span, CodeType, "%s takes 1 or 2 positional arguments", what)
	}
	return ev.loopValue(what, kind, c, args)
}

// loopValue builds a LoopV from (extent) or (start, stop) arguments.
func (ev *evaluator) loopValue(what string, kind ir.ForKind, c *call, args []Value) Value {
	if e := firstErr(args...); e != nil {
		if ev.kern != nil {
			return ev.needConcrete(e, e.Span(), what+" bounds")
		}
		return e
	}
	if len(args) == 3 {
		if n, ok := toInt(args[2]); !ok || n != 1 {
			return ev.errorf(args[2].Span(), CodeType, "%s over device values needs step 1", what)
		}
		args = args[:2]
	}
	exprs := make([]ir.Expr, len(args))
	for i, a := range args {
		e, ok := ev.toIR(a, ir.Int32)
		if !ok || exprType(e).IsFloat() {
			return ev.errorf(a.Span(), CodeType, "%s bound must be an integer, got %s", what, describe(a))
		}
		exprs[i] = e
	}
	lv := &LoopV{base: base{c.span}, What: what, Kind: kind}
	if len(exprs) == 1 {
		lv.Mins = []ir.Expr{&ir.IntImm{Value: 0, Type: ir.Int32, Span: c.span}}
		lv.Extents = exprs
	} else {
		lv.Mins = exprs[:1]
		lv.Extents = []ir.Expr{simplifySub(exprs[1], exprs[0], c.span)}
	}
	return lv
}

func (ev *evaluator) tGrid(c *call) Value {
	lv := &LoopV{base: base{c.span}, What: "T.grid", Kind: ir.Serial}
	if len(c.args) == 0 {
		return ev.errorf(c.span, CodeType, "T.grid needs at least one extent")
	}
	for i, a := range c.args {
		if isErr(a) {
			return ev.needConcrete(a, c.argSpans[i], "T.grid extents")
		}
		var mn, ext Value = &IntV{base{c.argSpans[i]}, 0}, a
		if t, ok := a.(*TupleV); ok && len(t.Elts) == 2 {
			mn, ext = t.Elts[0], t.Elts[1]
		}
		me, ok1 := ev.toIR(mn, ir.Int32)
		ee, ok2 := ev.toIR(ext, ir.Int32)
		if !ok1 || !ok2 {
			return ev.errorf(c.argSpans[i], CodeType, "T.grid extent must be an integer, got %s", describe(a))
		}
		lv.Mins = append(lv.Mins, me)
		lv.Extents = append(lv.Extents, ee)
	}
	return lv
}

// ---- scalar builtins ----

func (ev *evaluator) tAddressOf(c *call) Value {
	if !ev.checkArgs(c, "address_of", 1, "buffer_load") {
		return poison(c.span)
	}
	switch x := c.args[0].(type) {
	case *BufferV:
		idx := make([]ir.Expr, len(x.B.Shape))
		for i := range idx {
			idx[i] = &ir.IntImm{Value: 0, Type: ir.Int32, Span: c.span}
		}
		return &ExprV{base: base{c.span}, E: &ir.AddressOf{Buf: x.B, Indices: idx, Span: c.span}}
	case *ExprV:
		if ld, ok := x.E.(*ir.Load); ok {
			return &ExprV{base: base{c.span}, E: &ir.AddressOf{Buf: ld.Buf, Indices: ld.Indices, Span: c.span}}
		}
	case *RegionV:
		return &ExprV{base: base{c.span}, E: &ir.AddressOf{Buf: x.R.Buf, Indices: x.R.Min, Span: c.span}}
	}
	if x, ok := c.args[0].(*ExprV); ok {
		if vr, ok := x.E.(*ir.Var); ok && ev.kern != nil && ev.kern.mutable[vr] {
			// A mutable scalar is a one-element local buffer in TVM.
			return &ExprV{base: base{c.span}, E: &ir.Call{Op: "address_of", Args: []ir.Expr{vr}, Type: ir.HandleT, Span: c.span}}
		}
		if vr, ok := x.E.(*ir.Var); ok && vr.Type == ir.HandleT {
			// a tensor-map handle (T.tvm_stack_alloca("tensormap", 1)):
			// call_intrin("uint64", "tirx.address_of", var) in tvm/tirx/op.py
			return &ExprV{base: base{c.span}, E: &ir.Call{Op: "address_of", Args: []ir.Expr{vr}, Type: ir.DataType{Code: ir.UInt, Bits: 64}, Span: c.span}}
		}
	}
	if isErr(c.args[0]) {
		return c.args[0]
	}
	return ev.errorf(c.argSpans[0], CodeType, "T.address_of expects a buffer element such as A[i], got %s", describe(c.args[0]))
}

func (ev *evaluator) tCast(c *call) Value {
	if !ev.checkArgs(c, "cast", 2, "value", "dtype", "span") {
		return poison(c.span)
	}
	dt, ok := ev.dtypeOf(c.args[1], c.argSpan(1, "dtype"))
	if !ok {
		return poison(c.span)
	}
	return ev.castTo(c.args[0], dt, c.argSpans[0], c.span)
}

// castTo converts v to dt: Python numbers become typed constants.
func (ev *evaluator) castTo(v Value, dt ir.DataType, vspan, span source.Span) Value {
	if isErr(v) {
		return v
	}
	if isPyNum(v) {
		e, _ := ev.toIR(v, dt)
		switch x := e.(type) {
		case *ir.IntImm:
			if dt.IsFloat() {
				return &ExprV{base: base{span}, E: &ir.FloatImm{Value: float64(x.Value), Type: dt, Span: span}}
			}
			x.Type, x.Span = dt, span
			return &ExprV{base: base{span}, E: x}
		case *ir.FloatImm:
			if !dt.IsFloat() {
				return &ExprV{base: base{span}, E: &ir.IntImm{Value: int64(x.Value), Type: dt, Span: span}}
			}
			x.Type, x.Span = dt, span
			return &ExprV{base: base{span}, E: x}
		}
	}
	ex, ok := v.(*ExprV)
	if !ok {
		if s, ok := v.(*StrV); ok && dt.IsFloat() {
			switch s.V {
			case "inf", "-inf", "nan":
				f := math.Inf(1)
				if s.V == "-inf" {
					f = math.Inf(-1)
				} else if s.V == "nan" {
					f = math.NaN()
				}
				return &ExprV{base: base{span}, E: &ir.FloatImm{Value: f, Type: dt, Span: span}}
			}
		}
		return ev.errorf(vspan, CodeType, "cannot cast %s to %s", describe(v), dt)
	}
	if exprType(ex.E) == dt {
		return ex
	}
	return &ExprV{base: base{span}, E: &ir.Cast{To: dt, X: ex.E, Span: span}}
}

func (ev *evaluator) dtypeCall(d *DTypeV, c *call) Value {
	if !d.Ctor {
		return ev.errorf(c.fnSpan, CodeType, "'DataType' object is not callable")
	}
	v := c.arg(0, "expr")
	if v == nil {
		name, sp := ev.hintName(c, "v")
		if !sp.IsValid() {
			sp = c.span
		}
		return &ExprV{base: base{c.span}, E: &ir.Var{Name: name, Type: d.DT, Span: sp}, fresh: true}
	}
	return ev.castTo(v, d.DT, c.argSpan(0, "expr"), c.span)
}

func (ev *evaluator) tEvaluate(c *call) Value {
	if !ev.checkArgs(c, "evaluate", 1, "value") {
		return poison(c.span)
	}
	if e, ok := ev.toIR(c.args[0], ir.DataType{}); ok {
		ev.emitStmt(&ir.Evaluate{X: e, Span: c.span})
	} else if !isErr(c.args[0]) {
		return ev.errorf(c.argSpans[0], CodeType, "T.evaluate expects a scalar expression, got %s", describe(c.args[0]))
	}
	return &NoneV{base{c.span}}
}

func (ev *evaluator) tBind(c *call) Value {
	if !ev.requireKernel(c, "T.Bind") || !ev.checkArgs(c, "Bind", 1, "value", "type_annotation", "var") {
		return poison(c.span)
	}
	v := c.args[0]
	e, ok := ev.toIR(v, ir.DataType{})
	if !ok {
		if isErr(v) {
			return ev.needConcrete(v, c.argSpans[0], "T.Bind's value")
		}
		return ev.errorf(c.argSpans[0], CodeType, "T.Bind expects a scalar expression, got %s", describe(v))
	}
	var vr *ir.Var
	if vv, ok := c.kw("var"); ok {
		if x, ok := vv.(*ExprV); ok {
			vr, _ = x.E.(*ir.Var)
		}
	}
	if vr == nil {
		name, sp := ev.hintName(c, "v")
		if !sp.IsValid() {
			sp = c.span
		}
		t := exprType(e)
		if ta := c.arg(1, "type_annotation"); ta != nil {
			if d, ok := ta.(*DTypeV); ok {
				t = d.DT
			}
		}
		vr = &ir.Var{Name: name, Type: t, Span: sp}
	}
	ev.emitStmt(&ir.Let{Var: vr, Value: e, Span: c.span})
	return &ExprV{base: base{c.span}, E: vr, fresh: true}
}

func (ev *evaluator) tIfThenElse(c *call) Value {
	if !ev.checkArgs(c, "if_then_else", 3, "cond", "t", "f") {
		return poison(c.span)
	}
	if e := firstErr(c.args...); e != nil {
		return e
	}
	cond := c.args[0]
	if _, ok := cond.(*ExprV); !ok {
		if truthy(cond) {
			return c.args[1]
		}
		return c.args[2]
	}
	a, ok1 := ev.toIR(c.args[1], ir.DataType{})
	b, ok2 := ev.toIR(c.args[2], exprType(a))
	if !ok1 || !ok2 {
		return ev.errorf(c.span, CodeType, "T.if_then_else needs scalar branches")
	}
	return &ExprV{base: base{c.span}, E: &ir.Select{Cond: cond.(*ExprV).E, A: a, B: b, Span: c.span}}
}

func (ev *evaluator) tLimit(c *call, which string) Value {
	if !ev.checkArgs(c, which, 1, "dtype") {
		return poison(c.span)
	}
	dt, ok := ev.dtypeOf(c.args[0], c.argSpans[0])
	if !ok {
		return poison(c.span)
	}
	if dt.IsFloat() {
		f := math.Inf(1)
		switch which {
		case "max_value":
			f = floatMax(dt)
		case "min_value":
			f = -floatMax(dt)
		}
		return &ExprV{base: base{c.span}, E: &ir.FloatImm{Value: f, Type: dt, Span: c.span}}
	}
	var n int64
	switch {
	case which == "min_value" && dt.Code == ir.Int:
		n = -1 << (dt.Bits - 1)
	case which == "min_value":
		n = 0
	case dt.Code == ir.Int:
		n = 1<<(dt.Bits-1) - 1
	case dt.Bits >= 64:
		n = math.MaxInt64
	default:
		n = 1<<dt.Bits - 1
	}
	return &ExprV{base: base{c.span}, E: &ir.IntImm{Value: n, Type: dt, Span: c.span}}
}

func floatMax(dt ir.DataType) float64 {
	switch {
	case dt == ir.Float16:
		return 65504
	case dt == ir.BF16:
		return 3.3895313892515355e38
	case dt.Code == ir.Float8E4M3:
		return 448
	case dt.Code == ir.Float8E5M2:
		return 57344
	case dt.Code == ir.Float8E8M0:
		return 1.7014118346046923e38 // 2^127
	case dt.Code == ir.Float4E2M1:
		return 6
	case dt.Bits == 64:
		return math.MaxFloat64
	}
	return math.MaxFloat32
}

// tWarpShuffle is T.tvm_warp_shuffle[_up|_down](mask, value, lane, width,
// warp_size): TVM's builtin, __shfl_sync (_up/_down) on CUDA. Its value is
// a runtime expression of value's type (a branch on it is a runtime
// branch, as a kernel's warp-role dispatch on a shuffled warp id is).
func (ev *evaluator) tWarpShuffle(c *call, op string) Value {
	if !ev.checkArgs(c, op, 5, "mask", "value", "lane", "width", "warp_size") {
		return poison(c.span)
	}
	args := make([]ir.Expr, 5)
	for i, a := range c.args {
		want := ir.DataType{}
		if i == 0 {
			want = ir.UInt32
		} else if i >= 2 {
			want = ir.Int32
		}
		e, ok := ev.toIR(a, want)
		if !ok {
			return orPoison(firstErr(a), c.argSpans[i])
		}
		args[i] = e
	}
	return &ExprV{base: base{c.span}, E: &ir.Call{Op: op, Args: args, Type: exprType(args[1]), Span: c.span}}
}

func (ev *evaluator) tReinterpret(c *call) Value {
	if !ev.checkArgs(c, "reinterpret", 2, "dtype", "value") {
		return poison(c.span)
	}
	var dt ir.DataType
	if isPointerType(c.args[0]) {
		// T.reinterpret(PointerType(PrimType(t)), addr): a pointer, which
		// tilels types as a handle (a buffer's data).
		dt = ir.HandleT
	} else {
		var ok bool
		if dt, ok = ev.dtypeOf(c.args[0], c.argSpans[0]); !ok {
			return poison(c.span)
		}
	}
	e, ok := ev.toIR(c.args[1], ir.DataType{})
	if !ok {
		return orPoison(firstErr(c.args[1]), c.span)
	}
	return &ExprV{base: base{c.span}, E: &ir.Call{Op: "reinterpret", Args: []ir.Expr{e}, Type: dt, Span: c.span}}
}

// isPointerType reports whether v is tvm.ir.PointerType(...) (tvm.ir.type
// is not modelled, so it is an opaque value with that path).
func isPointerType(v Value) bool {
	o, ok := v.(*OpaqueV)
	return ok && (o.Path == "tvm.ir.type.PointerType(...)" || o.Path == "tvm.ir.PointerType(...)")
}

func (ev *evaluator) tStaticAssert(c *call) Value {
	v := c.arg(0, "x")
	if v == nil || isErr(v) {
		return &NoneV{base{c.span}}
	}
	if _, ok := v.(*ExprV); !ok && !truthy(v) {
		msg := "static assertion failed"
		if m, ok := c.arg(1, "message").(*StrV); ok && m.V != "" {
			msg += ": " + m.V
		}
		ev.errorf(c.argSpan(0, "x"), CodeType, "%s", msg)
	}
	return &NoneV{base{c.span}}
}

func (ev *evaluator) tCeilDiv(c *call) Value {
	if !ev.checkArgs(c, "ceildiv", 2, "lhs", "rhs") {
		return poison(c.span)
	}
	a, b := c.args[0], c.args[1]
	if isPyNum(a) && isPyNum(b) {
		s := ev.binop("+", a, b, c.span, false)
		s = ev.binop("-", s, &IntV{base{c.span}, 1}, c.span, false)
		return ev.binop("//", s, b, c.span, false)
	}
	s := ev.binop("+", a, ev.binop("-", b, &IntV{base{c.span}, 1}, c.span, false), c.span, false)
	return ev.binop("//", s, b, c.span, false)
}

// mathOps maps T.<name> scalar functions to an ir.BinOp (two operands) or
// to 0 for an ir.Call of that name.
var mathOps = map[string]ir.BinOp{
	"max": ir.Max, "min": ir.Min, "floordiv": ir.FloorDiv, "floormod": ir.FloorMod,
	"truncdiv": ir.Div, "truncmod": ir.FloorMod, "shift_left": ir.Shl, "shift_right": ir.Shr,
	"bitwise_and": ir.BitAnd, "bitwise_or": ir.BitOr, "bitwise_xor": ir.BitXor,
	"sqrt": 0, "exp": 0, "exp2": 0, "exp10": 0, "log": 0, "log2": 0, "log10": 0, "log1p": 0,
	"tanh": 0, "sigmoid": 0, "sin": 0, "cos": 0, "tan": 0, "rsqrt": 0, "erf": 0, "abs": 0, "fabs": 0,
	"floor": 0, "ceil": 0, "round": 0, "trunc": 0, "nearbyint": 0, "pow": 0, "fma": 0, "bitwise_not": 0,
	"popcount": 0, "clz": 0, "isnan": 0, "isinf": 0, "isfinite": 0, "copysign": 0, "fmod": 0, "hypot": 0,
}

func (ev *evaluator) mathCall(name string, op ir.BinOp, c *call) Value {
	if e := firstErr(c.args...); e != nil {
		return e
	}
	if op != 0 {
		if len(c.args) != 2 {
			return ev.errorf(c.span, CodeType, "T.%s takes 2 arguments (%d given)", name, len(c.args))
		}
		a, b := c.args[0], c.args[1]
		if (op == ir.Max || op == ir.Min) && isPyNum(a) && isPyNum(b) {
			// T.max over Python numbers is a constant expression.
			ae, _ := ev.toIR(a, ir.DataType{})
			be, _ := ev.toIR(b, exprType(ae))
			return &ExprV{base: base{c.span}, E: mkBin(op, ae, be, c.span)}
		}
		var ae, be ir.Expr
		var ok1, ok2 bool
		if x, ok := a.(*ExprV); ok {
			ae, ok1 = x.E, true
			be, ok2 = ev.toIR(b, exprType(ae))
		} else {
			be, ok2 = ev.toIR(b, ir.DataType{})
			ae, ok1 = ev.toIR(a, exprType(be))
		}
		if !ok1 || !ok2 {
			return ev.errorf(c.span, CodeType, "T.%s needs scalar arguments", name)
		}
		return &ExprV{base: base{c.span}, E: mkBin(op, ae, be, c.span)}
	}
	args := make([]ir.Expr, len(c.args))
	var t ir.DataType
	for i, a := range c.args {
		e, ok := ev.toIR(a, t)
		if !ok {
			return ev.errorf(c.argSpans[i], CodeType, "T.%s needs scalar arguments, got %s", name, describe(a))
		}
		if i == 0 {
			t = exprType(e)
		}
		args[i] = e
	}
	if len(args) == 0 {
		return ev.errorf(c.span, CodeType, "T.%s needs an argument", name)
	}
	if !t.IsValid() {
		t = ir.Float32
	}
	switch name {
	case "isnan", "isinf", "isfinite":
		t = ir.BoolT
	}
	opName := name
	switch name {
	case "sqrt":
		opName = ir.OpSqrt
	case "exp":
		opName = ir.OpExp
	case "exp2":
		opName = ir.OpExp2
	case "log2":
		opName = ir.OpLog2
	case "fabs":
		opName = "abs"
	}
	return &ExprV{base: base{c.span}, E: &ir.Call{Op: opName, Args: args, Type: t, Span: c.span}}
}

// intrinsicCall calls a T.cuda.* / T.ptx.* intrinsic: an ir.Call whose Op
// is the dotted path after T ("cuda.cta_sync", "ptx.mbarrier.init").
func (ev *evaluator) intrinsicCall(f *IntrinsicV, c *call) Value {
	ev.checkSurfaceName("T.", f.Path, c.fnSpan, "") // release_surface.go
	var args []ir.Expr
	all := append([]Value(nil), c.args...)
	for _, k := range c.kwargs {
		all = append(all, k.v)
	}
	for i, a := range all {
		if isErr(a) {
			if ev.kern != nil {
				return ev.needConcrete(a, a.Span(), "T."+f.Path+"'s arguments")
			}
			return a
		}
		var e ir.Expr
		switch x := a.(type) {
		case *StrV:
			e = &ir.StringImm{Value: x.V, Span: x.span}
		case *BufferV:
			e = &ir.BufferData{Buf: x.B, Span: x.span}
		case *DTypeV:
			e = &ir.StringImm{Value: x.DT.String(), Span: x.span}
		case *IntrinsicV:
			// an operand marker such as T.ptx.SINK
			ev.warnf(x.span, CodeUnresolved, "not modelled: `T.%s` as an operand of T.%s; statement ignored", x.Path, f.Path)
			return poison(c.span)
		default:
			var ok bool
			if e, ok = ev.toIR(a, ir.DataType{}); !ok {
				sp := a.Span()
				if i < len(c.argSpans) {
					sp = c.argSpans[i]
				}
				return ev.errorf(sp, CodeType, "T.%s argument %d must be a scalar, got %s", f.Path, i, describe(a))
			}
		}
		args = append(args, e)
	}
	if (f.Path == ir.OpCpAsyncWait || f.Path == ir.OpCpAsyncBulkWait) && len(args) == 0 {
		args = append(args, &ir.IntImm{Value: 0, Type: ir.Int32, Span: c.span}) // TVM's default n=0
	}
	var t ir.DataType
	op := f.Path
	if strings.HasSuffix(f.Path, "elect_sync") {
		t = ir.Int32
		if f.Path == "cuda.elect_sync" {
			op = ir.OpElectSync // T.cuda.elect_sync is ptx_elect_sync in 0.25 (backend/cuda/script.py)
		}
	}
	return &ExprV{base: base{c.span}, E: &ir.Call{Op: op, Args: args, Type: t, Span: c.span}}
}

func (ev *evaluator) markerCall(m *MarkerV, c *call) Value {
	switch m.Name {
	case "T.prim_func", "T.jit", "T.inline", "T.macro":
		return &MarkerV{base: base{c.span}, Name: m.Name}
	case "T.Buffer":
		if _, hasData := c.kw("data"); hasData && ev.kern != nil && ev.emit != nil {
			return ev.tDeclBuffer(c) // T.Buffer(..., data=...) in a body declares a view
		}
		return ev.bufferAnnot(c)
	case "T.handle":
		return &MarkerV{base: base{c.span}, Name: "T.handle"}
	}
	return ev.errorf(c.fnSpan, CodeType, "'%s' object is not callable", m.Name)
}

// bufferAnnot evaluates T.Buffer(shape, dtype, scope=..., layout=...).
func (ev *evaluator) bufferAnnot(c *call) Value {
	a := &AnnotV{base: base{c.span}, Kind: "buffer", DT: ir.Float32}
	a.Shape = c.arg(0, "shape")
	if a.Shape == nil {
		return ev.errorf(c.span, CodeType, "T.Buffer needs a shape")
	}
	if d := c.arg(1, "dtype"); d != nil {
		dt, ok := ev.dtypeOf(d, c.argSpan(1, "dtype"))
		if !ok {
			return poison(c.span)
		}
		a.DT = dt
	}
	if s, ok := c.kw("scope"); ok {
		if str, ok := s.(*StrV); ok {
			a.Scope = str.V
		}
	}
	if l, ok := c.kw("layout"); ok {
		a.Layout = l
	}
	return a
}

// execAnnAssign handles `x: T.int32 = e`, `x: T.let = e`, `v: T.f32[8]`.
func (ev *evaluator) execAnnAssign(fr *frame, s *syntax.AnnAssign) {
	ann := ev.expr(fr, s.Annotation)
	name, isName := s.Target.(*syntax.Name)
	if !ev.inKernelTIR(fr) || !isName {
		if s.Value != nil {
			ev.assign(fr, s.Target, ev.expr(fr, s.Value), s.Value.Span(), true)
		}
		return
	}
	var value Value
	if s.Value != nil {
		saved := ev.hint
		ev.hint = ev.hintFor([]syntax.Expr{s.Target}, s.Value)
		value = ev.expr(fr, s.Value)
		ev.hint = saved
	}
	switch a := ann.(type) {
	case *MarkerV:
		if a.Name == "T.let" {
			if value == nil {
				ev.errorf(s.Loc, CodeType, "T.let requires a value")
				return
			}
			e, ok := ev.toIR(value, ir.DataType{})
			if !ok {
				if isErr(value) {
					fr.env.set(name.Id, value)
					return
				}
				ev.errorf(s.Value.Span(), CodeType, "T.let expects a scalar expression, got %s", describe(value))
				return
			}
			t := exprType(e)
			if a.Arg != nil {
				if d, ok := a.Arg.(*DTypeV); ok {
					t = d.DT
				}
			}
			vr := &ir.Var{Name: name.Id, Type: t, Span: name.Loc}
			ev.emitStmt(&ir.Let{Var: vr, Value: e, Span: s.Loc})
			fr.env.set(name.Id, &ExprV{base: base{name.Loc}, E: vr})
			return
		}
	case *DTypeV:
		if a.Ctor {
			vr := &ir.Var{Name: name.Id, Type: a.DT, Span: name.Loc}
			var init ir.Expr
			if value != nil {
				cv := ev.castTo(value, a.DT, s.Value.Span(), s.Value.Span())
				if ex, ok := cv.(*ExprV); ok {
					init = ex.E
				} else {
					fr.env.set(name.Id, cv)
					return
				}
			} else if a.DT.IsFloat() {
				init = &ir.FloatImm{Value: 0, Type: a.DT, Span: s.Loc}
			} else {
				init = &ir.IntImm{Value: 0, Type: a.DT, Span: s.Loc}
			}
			ev.kern.mutable[vr] = true
			ev.emitStmt(&ir.Let{Var: vr, Value: init, Mutable: true, Span: s.Loc})
			fr.env.set(name.Id, &ExprV{base: base{name.Loc}, E: vr})
			return
		}
	case *AnnotV:
		if a.Kind == "local" {
			if value != nil {
				ev.errorf(s.Value.Span(), CodeType, "a register array declaration takes no value")
			}
			shape, ok := ev.shapeArg(a.Shape, s.Annotation.Span())
			if !ok {
				fr.env.set(name.Id, poison(s.Loc))
				return
			}
			buf := &ir.Buffer{Name: name.Id, Shape: shape, Dtype: a.DT, Scope: "local", Kind: ir.AllocBuffer, Span: s.Loc}
			buf.Layout = layout.RowMajor(shape...)
			buf.Data = &ir.Var{Name: name.Id, Type: ir.HandleT, Span: name.Loc}
			ev.addBufferSite(buf, name.Loc, s.Loc, source.NoSpan)
			ev.emitStmt(&ir.Alloc{Buf: buf, Span: s.Loc})
			fr.env.set(name.Id, &BufferV{base{name.Loc}, buf})
			return
		}
	}
	if value != nil {
		ev.assignName(fr, name, value, s.Value.Span(), true)
	} else if !isErr(ann) {
		ev.errorf(s.Annotation.Span(), CodeType, "unsupported annotation %s in a prim_func body", describe(ann))
	}
}

// ---- buffers: indexing, stores, attributes ----

// bufferIndex evaluates buf[idx]: a scalar load when every dimension has
// a scalar index, else a region (spec §1.4).
func (ev *evaluator) bufferIndex(bv *BufferV, idx []Value, e *syntax.Subscript) Value {
	buf := bv.B
	if len(idx) == 1 && isSeq(idx[0]) {
		idx = seqElts(idx[0])
	}
	if e := firstErr(idx...); e != nil {
		if ev.kern != nil {
			return ev.needConcrete(e, e.Span(), "a buffer index")
		}
		return e
	}
	nd := len(buf.Shape)
	if len(idx) > nd {
		return ev.errorf(e.Index.Span(), CodeType, "too many indices for buffer `%s` of rank %d: %d", buf.Name, nd, len(idx))
	}
	region := len(idx) < nd
	mins := make([]ir.Expr, nd)
	exts := make([]ir.Expr, nd)
	for d := 0; d < nd; d++ {
		sp := e.Index.Span()
		if d >= len(idx) {
			mins[d] = &ir.IntImm{Value: 0, Type: ir.Int32, Span: e.Loc}
			exts[d] = dimExtent(buf, d, e.Loc)
			continue
		}
		x := idx[d]
		if x.Span().IsValid() {
			sp = x.Span()
		}
		if s, ok := x.(*SliceV); ok {
			region = true
			if _, none := s.Step.(*NoneV); !none {
				if n, ok := toInt(s.Step); !ok || n != 1 {
					return ev.errorf(s.Step.Span(), CodeType, "buffer region slice step must be 1, got %s", describe(s.Step))
				}
			}
			var lo, hi ir.Expr
			if _, none := s.Lo.(*NoneV); none {
				lo = &ir.IntImm{Value: 0, Type: ir.Int32, Span: sp}
			} else if lo, ok = ev.indexExpr(s.Lo); !ok {
				return ev.errorf(s.Lo.Span(), CodeType, "buffer index must be an integer, got %s", describe(s.Lo))
			}
			if _, none := s.Hi.(*NoneV); none {
				hi = dimExtent(buf, d, sp)
			} else if hi, ok = ev.indexExpr(s.Hi); !ok {
				return ev.errorf(s.Hi.Span(), CodeType, "buffer index must be an integer, got %s", describe(s.Hi))
			}
			mins[d], exts[d] = lo, simplifySub(hi, lo, sp)
			l, lok := ir.ConstInt(lo)
			h, hok := ir.ConstInt(hi)
			outside := (lok && (l < 0 || l > buf.Shape[d])) || (hok && (h < 0 || h > buf.Shape[d]))
			if runtimeDim(buf, d) {
				outside = lok && l < 0 || hok && h < 0 // the extent is a runtime value
			}
			if ev.oobRegions && buf.Scope == "global" {
				outside = false // TMA boxes may leave the tensor
			}
			if outside || (lok && hok && h < l) {
				return ev.errorf(sp, CodeOutOfBounds, "region %s:%s is out of bounds for dimension %d of `%s` with extent %d",
					ExprString(lo), ExprString(hi), d, buf.Name, buf.Shape[d])
			}
			continue
		}
		ix, ok := ev.indexExpr(x)
		if !ok {
			return ev.errorf(sp, CodeType, "buffer index must be an integer or a slice, got %s", describe(x))
		}
		if n, ok := ir.ConstInt(ix); ok && (n < 0 || n >= buf.Shape[d] && !runtimeDim(buf, d)) {
			return ev.errorf(sp, CodeOutOfBounds, "index %d is out of bounds for dimension %d of `%s` with extent %d", n, d, buf.Name, buf.Shape[d])
		}
		mins[d], exts[d] = ix, &ir.IntImm{Value: 1, Type: ir.Int32, Span: sp}
	}
	if region {
		return &RegionV{base{e.Loc}, &ir.Region{Buf: buf, Min: mins, Extent: exts, Span: e.Loc}}
	}
	if ev.checkDirectAccess(buf, e.Loc) {
		return poison(e.Loc)
	}
	return &ExprV{base: base{e.Loc}, E: &ir.Load{Buf: buf, Indices: mins, Span: e.Loc}}
}

// checkDirectAccess reports a scalar access to a buffer whose layout puts
// elements on threads (TVM LowerTIRx).
func (ev *evaluator) checkDirectAccess(buf *ir.Buffer, span source.Span) bool {
	if t, ok := buf.Layout.(*layout.TileLayout); ok && t.HasThreadAxis() {
		ev.errorf(span, CodeType, "Cannot lower direct BufferLoad/BufferStore on a buffer with thread-axis layout: unable to verify that the coordinate matches the current thread. Use .view() + .local() to decompose thread and memory axes.")
		return true
	}
	return false
}

func (ev *evaluator) indexExpr(v Value) (ir.Expr, bool) {
	e, ok := ev.toIR(v, ir.Int32)
	if !ok || exprType(e).IsFloat() {
		return nil, false
	}
	return e, true
}

func (ev *evaluator) bufferStore(fr *frame, bv *BufferV, idx []Value, v Value, vspan source.Span, e *syntax.Subscript) {
	if ev.emit == nil {
		ev.errorf(e.Loc, CodeType, "buffer stores are only allowed inside a prim_func body")
		return
	}
	r := ev.bufferIndex(bv, idx, e)
	if isErr(r) || isErr(v) {
		if isErr(v) && ev.kern != nil {
			ev.needConcrete(v, vspan, "the stored value")
		}
		return
	}
	ld, ok := r.(*ExprV)
	if !ok {
		ev.errorf(e.Loc, CodeType, "cannot assign to buffer region %s; use Tx.copy or Tx.fill", ev.text(e.Loc))
		return
	}
	load := ld.E.(*ir.Load)
	val, ok := ev.toIR(v, bv.B.Dtype)
	if !ok {
		ev.errorf(vspan, CodeType, "cannot store %s into buffer `%s`", describe(v), bv.B.Name)
		return
	}
	if t := exprType(val); t.IsValid() && t != bv.B.Dtype {
		val = &ir.Cast{To: bv.B.Dtype, X: val, Span: val.Pos()}
	}
	ev.emitStmt(&ir.Store{Buf: bv.B, Indices: load.Indices, Value: val, Span: source.Join(e.Loc, vspan)})
}

func (ev *evaluator) bufferAttr(bv *BufferV, name string, span source.Span) Value {
	buf := bv.B
	if buf.RuntimeDim() >= 0 { // dynamic_shape.go
		if v := runtimeShapeAttr(buf, name, span); v != nil {
			return v
		}
	}
	switch name {
	case "data":
		return &ExprV{base: base{span}, E: &ir.BufferData{Buf: buf, Span: span}}
	case "shape":
		out := make([]Value, len(buf.Shape))
		for i, s := range buf.Shape {
			out[i] = &IntV{base{span}, s}
		}
		return &TupleV{base{span}, out}
	case "dtype":
		return &StrV{base{span}, buf.Dtype.String()}
	case "name":
		return &StrV{base{span}, buf.Name}
	case "ndim":
		return &IntV{base{span}, int64(len(buf.Shape))}
	case "elem_offset":
		if buf.ElemOffsetExpr != nil { // lib_buffer_view.go
			return &ExprV{base: base{span}, E: ir.AddE(buf.ElemOffsetExpr, ir.Const(buf.ElemOffset))}
		}
		return &IntV{base{span}, buf.ElemOffset}
	case "layout":
		if buf.Layout == nil {
			return &NoneV{base{span}}
		}
		return &LayoutV{base: base{span}, L: buf.Layout}
	case "scope":
		return method("Buffer.scope", func(ev *evaluator, c *call) Value { return &StrV{base{c.span}, buf.Scope} })
	case "ptr_to":
		return method("Buffer.ptr_to", func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "ptr_to", 1, "indices") {
				return poison(c.span)
			}
			elts := seqElts(c.args[0])
			if !isSeq(c.args[0]) {
				elts = []Value{c.args[0]}
			}
			if len(elts) != len(buf.Shape) {
				return ev.errorf(c.argSpans[0], CodeType, "the number of indices %s does not match the shape of the buffer %s", Repr(c.args[0]), shapeStr(buf.Shape))
			}
			idx := make([]ir.Expr, len(elts))
			for i, x := range elts {
				if isErr(x) {
					return x
				}
				e, ok := ev.indexExpr(x)
				if !ok {
					return ev.errorf(c.argSpans[0], CodeType, "buffer index must be an integer, got %s", describe(x))
				}
				idx[i] = e
			}
			return &ExprV{base: base{c.span}, E: &ir.AddressOf{Buf: buf, Indices: idx, Span: c.span}}
		})
	case "allocated_addr":
		// A list of the tensor-memory address expression (allocated_addr=).
		if buf.AllocatedAddr == nil {
			return &NoneV{base{span}}
		}
		return &ListV{base{span}, []Value{&ExprV{base: base{span}, E: buf.AllocatedAddr}}}
	case "access_ptr":
		// buf.access_ptr(access_mask, ptr_type="handle", content_lanes=1,
		// offset=0, extent=None): a pointer to the element at flat offset
		// (TVM's tvm_access_ptr; the mask and extent only annotate it).
		return method("Buffer.access_ptr", func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "access_ptr", 1, "access_mask", "ptr_type", "content_lanes", "offset", "extent") {
				return poison(c.span)
			}
			var off ir.Expr = ir.Const(0)
			if v := c.arg(3, "offset"); v != nil {
				if isErr(v) {
					return v
				}
				e, ok := ev.indexExpr(v)
				if !ok {
					return ev.errorf(c.argSpan(3, "offset"), CodeType, "access_ptr offset must be an integer, got %s", describe(v))
				}
				off = e
			}
			return &ExprV{base: base{c.span}, E: &ir.AddressOf{Buf: buf, Indices: []ir.Expr{off}, FlatIndex: true, Span: c.span}}
		})
	case "local":
		return method("Buffer.local", func(ev *evaluator, c *call) Value { return ev.bufferView(buf, c, true) })
	case "view":
		return method("Buffer.view", func(ev *evaluator, c *call) Value { return ev.bufferView(buf, c, false) })
	case "sub": // lib_buffer_view.go
		return &subIndexerV{base{span}, buf}
	case "permute": // lib_buffer_view.go
		return method("Buffer.permute", func(ev *evaluator, c *call) Value { return ev.bufferPermute(buf, c) })
	}
	if v := ev.bufferViewAttr(buf, name); v != nil { // lib_buffer_view_rearrange.go
		return v
	}
	// Buffer has many more methods and fields (sub, tile, ...); they
	// are opaque here.
	return &OpaqueV{base{span}, buf.Name + "." + name}
}

// bufferView implements buf.local(*shape, layout=None) and
// buf.view(*shape, layout=None): a decl_buffer over buf's storage.
func (ev *evaluator) bufferView(buf *ir.Buffer, c *call, local bool) Value {
	what := "Buffer.view"
	if local {
		what = "Buffer.local"
	}
	if !ev.requireKernel(c, what) {
		return poison(c.span)
	}
	if e := firstErr(c.args...); e != nil {
		return ev.needConcrete(e, e.Span(), what+" shape")
	}
	lv, hasLayout := c.kw("layout")
	var shape []int64
	for i, a := range c.args {
		n, ok := toInt(a)
		if !ok {
			if s, isStr := a.(*StrV); isStr && !local && len(c.args) == 1 && len(c.kwargs) == 0 {
				return ev.bufferViewDtype(buf, c, s)
			}
			return ev.errorf(c.argSpans[i], CodeType, "%s shape must be integers, got %s", what, describe(a))
		}
		shape = append(shape, n)
	}
	var l layout.Layout
	badLayout := false
	switch {
	case hasLayout:
		nb := &ir.Buffer{Name: buf.Name, Shape: shape}
		l = ev.layoutArg(lv, c.argSpan(-1, "layout"), nb)
		badLayout = ev.kern.badLayout[nb]
	case local:
		if buf.Layout == nil {
			if ev.kern.badLayout[buf] {
				return poison(c.span)
			}
			return ev.errorf(c.span, CodeMissingLayout, "buffer `%s` has no layout; .local() needs one", buf.Name)
		}
		l = layout.Storage(buf.Layout)
	default:
		l = buf.Layout
	}
	if len(shape) == 0 {
		switch {
		case local && l != nil:
			shape = []int64{layout.Size(l, nil)}
		case !local:
			return ev.errorf(c.span, CodeType, "Buffer.view needs a shape")
		}
	}
	if !local && !hasLayout {
		// -1 inference and element-count check, as TVM does.
		total, known, neg := buf.NumElements(), int64(1), -1
		for i, s := range shape {
			if s == -1 && neg < 0 {
				neg = i
			} else {
				known *= s
			}
		}
		if neg >= 0 && known != 0 {
			shape[neg] = total / known
		} else if known != total {
			return ev.errorf(c.span, CodeShapeMismatch, "The shape of the buffer %s and the new shape %s are not compatible", shapeStr(buf.Shape), shapeStr(shape))
		}
	}
	name, nameSpan := ev.hintName(c, buf.Name+"_view")
	if local && !nameSpan.IsValid() {
		name = buf.Name + "_local"
	}
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: shape, Dtype: buf.Dtype, Scope: buf.Scope,
		Layout: l, ElemOffset: buf.ElemOffset, ElemOffsetExpr: buf.ElemOffsetExpr, Base: buf, Kind: ir.DeclBuffer, Span: c.span}
	if badLayout || (!hasLayout && ev.kern.badLayout[buf]) {
		ev.kern.badLayout[nb] = true
	}
	ev.addBufferSite(nb, nameSpan, c.span, source.NoSpan)
	ev.emitView(nb) // lib_buffer_view_rearrange.go
	return &BufferV{base{c.span}, nb}
}

// bufferViewDtype is buf.view(dtype): the same bytes as another element
// type, the last dimension scaled by the ratio of the element sizes and
// the element offset with it (tirx/buffer.py). A buffer laid out other
// than row-major needs the layout's pack/unpack, which tilels does not
// model: that view stays unknown.
func (ev *evaluator) bufferViewDtype(buf *ir.Buffer, c *call, s *StrV) Value {
	dt, ok := ev.dtypeOf(s, c.argSpans[0])
	if !ok {
		return poison(c.span)
	}
	if buf.ElemOffsetExpr != nil { // lib_buffer_view.go
		return &OpaqueV{base{c.span}, "Buffer.view(dtype) of a view at a runtime element offset"}
	}
	if len(buf.Shape) == 0 {
		return &OpaqueV{base{c.span}, "Buffer.view(dtype) of a buffer without dimensions"}
	}
	if buf.Layout != nil && !layout.IsTrivial(buf.Layout) {
		return ev.bufferViewDtypeLaidOut(buf, c, dt) // layoutlib_pack.go
	}
	cur, to := int64(buf.Dtype.Bits), int64(dt.Bits)
	shape := append([]int64(nil), buf.Shape...)
	last := len(shape) - 1
	off := buf.ElemOffset
	switch {
	case to > cur:
		r := to / cur
		if to%cur != 0 || shape[last]%r != 0 {
			return ev.errorf(c.span, CodeType, "Buffer.view(%s) of %s elements: the last dimension %d is not a multiple of %d", pyQuote(dt.String()), buf.Dtype, shape[last], r)
		}
		shape[last] /= r
		off /= r
	default:
		r := cur / to
		if cur%to != 0 {
			return ev.errorf(c.span, CodeType, "Buffer.view(%s) of %s elements: the sizes do not divide", pyQuote(dt.String()), buf.Dtype)
		}
		shape[last] *= r
		off *= r
	}
	name, nameSpan := ev.hintName(c, buf.Name+"_view")
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: shape, Dtype: dt, Scope: buf.Scope,
		Layout: layout.RowMajor(shape...), ElemOffset: off, Base: buf, Kind: ir.DeclBuffer, Span: c.span}
	ev.addBufferSite(nb, nameSpan, c.span, source.NoSpan)
	ev.emitView(nb)
	return &BufferV{base{c.span}, nb}
}

// ---- T.SMEMPool ----

// tSMEMPool is T.SMEMPool(): a bump allocator whose alloc() declares
// shared.dyn views at increasing byte offsets of one arena buffer.
func (ev *evaluator) tSMEMPool(c *call) Value {
	if !ev.requireKernel(c, "T.SMEMPool") {
		return poison(c.span)
	}
	name, _ := ev.hintName(c, "pool")
	arena := &ir.Buffer{Name: name, Shape: []int64{0}, Dtype: ir.DataType{Code: ir.UInt, Bits: 8}, Scope: "shared.dyn", Kind: ir.AllocBuffer, Span: c.span}
	if p := c.arg(0, "ptr"); p != nil && !isNoneV(p) {
		var bd *ir.BufferData
		if ex, ok := p.(*ExprV); ok {
			bd, _ = ex.E.(*ir.BufferData)
		}
		if bd == nil {
			if isErr(p) {
				return ev.needConcrete(p, c.argSpan(0, "ptr"), "T.SMEMPool's ptr")
			}
			return ev.errorf(c.argSpan(0, "ptr"), CodeType, "T.SMEMPool ptr must be a buffer's .data, got %s", describe(p))
		}
		if !slices.ContainsFunc(ev.kern.k.Buffers, func(b BufferSite) bool { return b.Buf == bd.Buf }) {
			return ev.errorf(c.argSpan(0, "ptr"), CodeType, "T.SMEMPool ptr must be the .data of a buffer of this kernel; `%s` is not", bd.Buf.Name)
		}
		arena = bd.Buf
	} else {
		arena.Data = &ir.Var{Name: name, Type: ir.HandleT, Span: c.span}
		ev.emitStmt(&ir.Alloc{Buf: arena, Span: c.span})
	}
	return &PoolV{base: base{c.span}, Arena: arena, owner: ev.kern}
}

func (ev *evaluator) poolAttr(p *PoolV, name string, span source.Span) Value {
	if p.owner != ev.kern {
		return ev.errorf(span, CodeType, "a T.SMEMPool is used only in the kernel that makes it (`%s`)", p.owner.k.Func.Name)
	}
	switch name {
	case "alloc":
		return method("SMEMPool.alloc", func(ev *evaluator, c *call) Value { return ev.poolAlloc(p, c) })
	case "alloc_mma", "alloc_tcgen05_mma_AB": // the reference's older and newer names
		return method("SMEMPool."+name, func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, name, 1, "shape", "dtype", "swizzle_mode", "align") {
				return poison(c.span)
			}
			shape, ok := ev.shapeArg(c.args[0], c.argSpans[0])
			if !ok {
				return poison(c.span)
			}
			dt := ir.Float16
			if d := c.arg(1, "dtype"); d != nil {
				if dt, ok = ev.dtypeOf(d, c.argSpan(1, "dtype")); !ok {
					return poison(c.span)
				}
			}
			mode := int64(3) // "auto" is SWIZZLE_128B_ATOM
			switch m := c.arg(2, "swizzle_mode").(type) {
			case nil:
			case *StrV:
				switch m.V {
				case "auto":
				case "none":
					mode = 0
				default:
					return ev.errorf(c.argSpan(2, "swizzle_mode"), CodeType, "Unsupported swizzle_mode=%s; expected 'auto', 'none', or SwizzleMode", Repr(m))
				}
			default:
				n, ok := toInt(m)
				if !ok || n < 0 || n > 3 {
					return ev.errorf(c.argSpan(2, "swizzle_mode"), CodeType, "swizzle_mode must be a SwizzleMode, got %s", describe(m))
				}
				mode = n
			}
			if err := validateMMAAllocShape(name, shape, dt, mode); err != nil { // lib_alloc_pool.go
				return ev.errorf(c.span, CodeType, "%v", err)
			}
			lv := ev.safeLayout(c.span, "mma_shared_layout", func() Value {
				l, err := layout.MMASharedLayout(dt.Bits, int(mode), shape, ev.opts.Release >= release.R026) // 0.26+: packed 16-byte atoms for mode 0
				if err != nil {
					return ev.errorf(c.span, CodeType, "%v", err)
				}
				return &LayoutV{base: base{c.span}, L: l}
			})
			if isErr(lv) {
				return lv
			}
			align := Value(&IntV{base{c.span}, 1024})
			if a := c.arg(3, "align"); a != nil {
				align = a
			}
			n := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
				args: []Value{c.args[0], &StrV{base{c.span}, dt.String()}}, argSpans: []source.Span{c.argSpans[0], c.span},
				kwargs: []kwarg{{"align", align, c.span, c.span}, {"layout", lv, c.span, c.span}}}
			return ev.poolAlloc(p, n)
		})
	case "move_base_to":
		return method("SMEMPool.move_base_to", func(ev *evaluator, c *call) Value {
			n, ok := ev.intArg(c.arg(0, "offset"), c.argSpan(0, "offset"), "offset")
			if !ok {
				return poison(c.span)
			}
			p.Offset = n
			p.MaxOff = max(p.MaxOff, n)
			return &NoneV{base{c.span}}
		})
	case "commit":
		return method("SMEMPool.commit", func(ev *evaluator, c *call) Value {
			if s := c.arg(0, "size"); s != nil && !isNoneV(s) {
				if n, ok := toInt(s); ok && n > p.MaxOff {
					p.MaxOff = n
					p.Arena.Shape = []int64{n}
				}
			}
			return &NoneV{base{c.span}}
		})
	case "ptr":
		return &ExprV{base: base{span}, E: &ir.BufferData{Buf: p.Arena, Span: span}}
	case "buf":
		return &BufferV{base{span}, p.Arena}
	case "offset":
		return &IntV{base{span}, p.Offset}
	}
	return &OpaqueV{base{span}, "SMEMPool." + name}
}

// poolAlloc is SMEMPool.alloc(shape, dtype="float32", strides=None,
// scope="shared.dyn", align=0, layout="default").
func (ev *evaluator) poolAlloc(p *PoolV, c *call) Value {
	if !ev.requireKernel(c, "SMEMPool.alloc") || !ev.checkArgs(c, "alloc", 1, "shape", "dtype", "strides", "scope", "align", "layout") {
		return poison(c.span)
	}
	align := int64(0)
	if a := c.arg(4, "align"); a != nil {
		n, ok := ev.intArg(a, c.argSpan(4, "align"), "align")
		if !ok {
			return poison(c.span)
		}
		align = n
	}
	if align > 0 {
		p.Offset = (p.Offset + align - 1) / align * align
	}
	shape, ok := ev.shapeArg(c.args[0], c.argSpans[0])
	if !ok {
		return poison(c.span)
	}
	dt := ir.Float32
	if d := c.arg(1, "dtype"); d != nil {
		if dt, ok = ev.dtypeOf(d, c.argSpan(1, "dtype")); !ok {
			return poison(c.span)
		}
	}
	scope := "shared.dyn"
	if s := c.arg(3, "scope"); s != nil {
		if scope, ok = ev.strArg(s, c.argSpan(3, "scope"), "scope"); !ok {
			return poison(c.span)
		}
	}
	if p.Offset*8%int64(dt.Bits) != 0 {
		return ev.errorf(c.span, CodeType, "pool offset %d bytes is not a multiple of the %s element size; pass align=", p.Offset, dt)
	}
	name, nameSpan := ev.hintName(c, "buf")
	buf := &ir.Buffer{Name: name, Data: p.Arena.Data, Shape: shape, Dtype: dt, Scope: scope, Base: p.Arena,
		ElemOffset: p.Offset * 8 / int64(dt.Bits), Kind: ir.DeclBuffer, Span: c.span}
	lv := c.arg(5, "layout")
	layoutSpan := source.NoSpan
	if lv != nil {
		layoutSpan = c.argSpan(5, "layout")
		ev.noteLayout(lv)
	}
	buf.Layout = ev.layoutArg(lv, layoutSpan, buf)
	p.Offset += (buf.NumElements()*int64(dt.Bits) + 7) / 8
	p.MaxOff = max(p.MaxOff, p.Offset)
	if p.Arena.Shape[0] < p.MaxOff {
		p.Arena.Shape = []int64{p.MaxOff}
	}
	ev.addBufferSite(buf, nameSpan, c.span, layoutSpan)
	ev.emitStmt(&ir.Decl{Buf: buf, Span: c.span})
	return &BufferV{base{c.span}, buf}
}
