package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// KernelState is the state of the kernel being evaluated.
type KernelState struct {
	K           *Kernel
	Host, Body  []ir.Stmt
	DeviceEntry bool
	Mutable     map[*ir.Var]bool
	// PtrLets are the pointer values bound to immutable variables
	// (p: T.let = T.reinterpret(PointerType(...), x)), which a
	// decl_buffer's data may be.
	PtrLets map[*ir.Var]ir.Expr
	Params  map[*ir.Var]*ir.Param
	// badLayout marks buffers whose layout= argument failed to evaluate
	// (so a nil Layout there is not layout=None).
	BadLayout map[*ir.Buffer]bool
	// layoutSeen dedups Kernel.Layouts by span.
	layoutSeen map[source.Span]bool
	// ignored are expression statements whose value is opaque (calls
	// tilels does not model); one warning summarizes them.
	ignored []source.Span
	// consts are the T.constexpr values of a specialized @T.jit kernel.
	consts map[string]Value
	// handleData holds a bind line's list for a T.handle parameter, given
	// to the buffer T.match_buffer binds it to (MatchedParam).
	handleData map[*ir.Var]handleDatum
	// sites are the tile calls met (Kernel.Unresolved of a partial kernel).
	sites []UnresolvedCall
	// lib holds the library's state of this kernel by key (Lib); atEnd
	// runs once the body is evaluated, in the order Lib met the keys.
	lib   map[string]any
	atEnd []func()
	// unbuiltData is the data pointer of each match_buffer the evaluation
	// could not build (UnbuiltParamBuffer).
	unbuiltData map[*OpaqueV]ir.Expr
	// fresh are the variables the body declares without a value
	// (`x = T.int32()`): unboundVars checks that each it reads is bound.
	fresh []*ir.Var
}

// Lib returns the library's state of the kernel under key, made by init
// the first time; init's end, if not nil, runs once the kernel's body is
// evaluated (checks that need the whole body: tirxlib/iket.go's).
func (ks *KernelState) Lib(key string, init func() (state any, end func())) any {
	if v, ok := ks.lib[key]; ok {
		return v
	}
	if ks.lib == nil {
		ks.lib = map[string]any{}
	}
	v, end := init()
	ks.lib[key] = v
	if end != nil {
		ks.atEnd = append(ks.atEnd, end)
	}
	return v
}

// evalKernel evaluates a @T.prim_func def into a Kernel. A @T.jit def
// with T.constexpr parameters becomes a JitV, evaluated when specialized.
func (ev *Evaluator) evalKernel(fr *frame, def *syntax.FunctionDef, name string, deco *MarkerV) Value {
	if deco.Name == "T.jit" && len(paramNames(def.Params, true)) > 0 {
		j := &JitV{Base: Base{def.Name.Loc}, Def: def, Name: name, outer: fr, deco: deco}
		ev.jits = append(ev.jits, j)
		return j
	}
	// `# tilels: bind n=4` lines above a @T.prim_func (or its bind
	// setting) give its integer scalar parameters the values of one
	// launch each: a case each, whose code keeps the parameters
	// (ir.Func.LaunchArgs; docs/binding.md).
	if lines := ev.bindValues(def, name, launchNames(def)); len(lines) > 0 {
		var first Value
		for _, line := range lines {
			v := ev.evalKernelCase(fr, def, name, deco, line)
			if first == nil {
				first = v
			}
		}
		return first
	}
	return ev.evalKernelCase(fr, def, name, deco, nil)
}

// evalKernelCase evaluates a kernel def under the case its enclosing
// function calls and consts (the T.constexpr values of a @T.jit kernel,
// unbound ones included) give. A case already evaluated is not evaluated
// again; past the cap a new case is not evaluated.
func (ev *Evaluator) evalKernelCase(fr *frame, def *syntax.FunctionDef, name string, deco *MarkerV, consts []Binding) Value {
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
		return &KernelV{Base{def.Name.Loc}, k}
	}
	if dc.partial != nil && slices.Contains(dc.partialKeys, key) {
		return &KernelV{Base{def.Name.Loc}, dc.partial}
	}
	if ev.fileOut {
		// The file's budget ran out (reported once): no kernel is made
		// from here on.
		return &OpaqueV{Base{def.Name.Loc}, name + " (not analysed: the file's evaluation budget ran out)"}
	}
	if len(dc.cases) >= ev.Opts.MaxCases {
		if !slices.Contains(dc.capped, key) {
			dc.capped = append(dc.capped, key)
		}
		return &OpaqueV{Base{def.Name.Loc}, name + " (case not analysed: case cap)"}
	}
	if ev.skipBody(def, key) { // parallel_cases.go
		return &OpaqueV{Base{def.Name.Loc}, name + " (made by an earlier case)"}
	}
	k := &Kernel{Def: def, Func: &ir.Func{Name: def.Name.Id, Span: def.Loc, NameSpan: def.Name.Loc, Release: ev.Opts.Release}}
	if len(cs) > 0 {
		k.Case = cs
	}
	k.CaseSource, k.CaseID = ev.caseSource, ev.caseID
	ks := &KernelState{K: k, Mutable: map[*ir.Var]bool{}, Params: map[*ir.Var]*ir.Param{}, BadLayout: map[*ir.Buffer]bool{}, layoutSeen: map[source.Span]bool{}}
	if len(consts) > 0 {
		ks.consts = map[string]Value{}
		for _, b := range consts {
			ks.consts[b.Name] = b.Value
		}
	}
	// A kernel whose evaluation specializes itself again (a @T.jit body
	// calling its own .specialize) nests like a call: bounded the same way.
	if ev.depth >= maxCallDepth {
		return ev.Errorf(def.Name.Loc, CodeBudget, "call depth exceeds %d", maxCallDepth)
	}
	savedKern, savedEmit, savedSink, savedHint, savedDepth, savedTry := ev.Kern, ev.Emit, ev.sink, ev.hint, ev.depth, ev.tryDepth
	ev.Kern, ev.Emit, ev.sink, ev.hint, ev.tryDepth = ks, &ks.Host, &k.Diags, nil, 0
	ev.depth++
	work := ev.bodyStart() // parallel_cases.go
	ev.unit(ev.siteOf(siteKernel, def.Name.Id, def.Name.Loc), func() {
		kfr := &frame{env: ev.newDefScope(fr.env, def), tir: true, fn: &FuncV{Name: name}}
		defer ev.noteScopeSize(def, kfr.env)
		ev.kernelParams(fr, kfr, def, ks, name, deco)
		ev.execBlock(kfr, def.Body)
		for _, end := range ks.atEnd {
			end()
		}
		ev.unboundVars(ks, ks.K.Func.Name)
		if len(k.Unbound) > 0 {
			// A partial kernel: every tile call of its body is unresolved.
			for _, st := range def.Body {
				ev.skippedTileCalls(kfr, st, "")
			}
		}
		for _, d := range ks.handleData {
			// (sorted by nothing: one report per parameter, at its span)
			ev.Report(diag.Errorf(d.p.Loc, CodeDirective, "a bind line gives `%s` a list, but no T.match_buffer binds it to a buffer whose contents the list could be", d.p.Name.Id))
		}
		if n := len(ks.ignored); n > 0 {
			more := ""
			if n > 1 {
				more = fmt.Sprintf(" (and %d more statement%s in this kernel)", n-1, plural(n-1))
			}
			ev.Warnf(ks.ignored[0], CodeUnresolved, "`%s` is not modelled by tilels; statement ignored%s", Clip(ev.Text(ks.ignored[0]), 60), more)
		}
	})
	ev.Kern, ev.Emit, ev.sink, ev.hint, ev.depth, ev.tryDepth = savedKern, savedEmit, savedSink, savedHint, savedDepth, savedTry
	ev.bodyEnd(work, def)

	host, body := ks.Host, ks.Body
	if !ks.DeviceEntry {
		host, body = nil, ks.Host
	}
	k.Func.Host = &ir.Block{Stmts: host, Span: def.Loc}
	k.Func.Body = &ir.Block{Stmts: body, Span: def.Loc}
	if len(k.Unbound) == 0 {
		ev.made++
		dc.cases = append(dc.cases, k)
		dc.keys = append(dc.keys, key)
		if ev.Opts.OnKernel != nil {
			ev.Opts.OnKernel(k)
		}
	} else {
		if dc.partial == nil {
			dc.partial = k
			k.Unresolved = ks.unresolved()
		}
		dc.partialKeys = append(dc.partialKeys, key)
	}
	return &KernelV{Base{def.Name.Loc}, k}
}

// kernelParams binds the kernel's parameters: handles and scalars become
// ir.Params; T.Buffer annotations buffer parameters; T.constexpr
// parameters (@T.jit) Python values from bindings or defaults.
func (ev *Evaluator) kernelParams(outer, kfr *frame, def *syntax.FunctionDef, ks *KernelState, name string, deco *MarkerV) {
	ps := def.Params
	all := append(append(append([]*syntax.Param(nil), ps.Posonly...), ps.Args...), ps.Kwonly...)
	fn := &FuncV{Base: Base{def.Name.Loc}, Name: name, Def: def, Params: ps, Env: outer.env, Defaults: map[*syntax.Param]Value{}}
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
			} else if b, ok := ev.Opts.Bindings[name][p.Name.Id]; ok {
				v = b
			} else if p.Default != nil {
				v = ev.expr(outer, p.Default)
			} else {
				v = &UnboundV{Base{p.Name.Loc}, ev.originFor(fn, p)}
			}
			kfr.env.set(p.Name.Id, v)
		}
	}
	for i, p := range all {
		pname := p.Name.Id
		var ann Value = &MarkerV{Base: Base{p.Loc}, Name: "T.handle"}
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
		if _, bound := ks.consts[pname]; bound && !isConstexprAnnotation(p.Annotation) {
			_, scalar := ann.(*DTypeV)
			_, buffer := ann.(*AnnotV)
			if m, ok := ann.(*MarkerV); ok && m.Name == "T.handle" && isListOrTuple(ks.consts[pname]) {
				buffer = true // a handle T.match_buffer binds (handleData)
			}
			if !scalar && !buffer {
				// a bind line above a @T.prim_func: launch values are
				// for integer scalar parameters, and integer buffer
				// parameters' contents (launchData)
				ev.Report(diag.Errorf(p.Loc, CodeDirective, "a launch value binds an integer scalar parameter, or an integer buffer parameter to a list of integers: `%s` is %s", pname, Describe(ann)))
			}
		}
		switch a := ann.(type) {
		case *MarkerV:
			if a.Name == "T.constexpr" {
				continue // bound above
			}
			if a.Name != "T.handle" && a.Name != "T.TensorMap()" {
				ev.Errorf(p.Annotation.Span(), CodeType, "unsupported parameter annotation %s", a.Name)
			}
			vr := &ir.Var{Name: pname, Type: ir.HandleT, Span: p.Name.Loc}
			prm := &ir.Param{Var: vr, Span: p.Loc, TensorMap: a.Name == "T.TensorMap()"}
			ks.K.Func.Params = append(ks.K.Func.Params, prm)
			ks.Params[vr] = prm
			if v, ok := ks.consts[pname]; ok && a.Name == "T.handle" && isListOrTuple(v) {
				// the contents of the buffer match_buffer binds it to
				if ks.handleData == nil {
					ks.handleData = map[*ir.Var]handleDatum{}
				}
				ks.handleData[vr] = handleDatum{v, p}
			}
			kfr.env.set(pname, &ExprV{Base: Base{p.Name.Loc}, E: vr})
		case *DTypeV:
			vr := &ir.Var{Name: pname, Type: a.DT, Span: p.Name.Loc}
			ks.K.Func.Params = append(ks.K.Func.Params, &ir.Param{Var: vr, Span: p.Loc})
			kfr.env.set(pname, &ExprV{Base: Base{p.Name.Loc}, E: vr})
			if v, ok := ks.consts[pname]; ok {
				ev.launchArg(ks, vr, v, p)
			}
		case *AnnotV:
			vr := &ir.Var{Name: pname, Type: ir.HandleT, Span: p.Name.Loc}
			buf := ev.newBuffer(a, pname, vr, ir.ParamBuffer, p.Loc)
			if buf == nil {
				kfr.env.set(pname, UnbuiltBuffer(a.Shape, pname, p.Loc))
				continue
			}
			prm := &ir.Param{Var: vr, Buf: buf, Span: p.Loc}
			ks.K.Func.Params = append(ks.K.Func.Params, prm)
			ks.Params[vr] = prm
			if v, ok := ks.consts[pname]; ok {
				ev.launchData(ks, buf, v, p)
			}
			ev.AddBufferSite(buf, p.Name.Loc, p.Loc, source.NoSpan)
			kfr.env.set(pname, &BufferV{Base{p.Name.Loc}, buf})
		default:
			if !IsErr(ann) {
				ev.Errorf(p.Annotation.Span(), CodeType, "unsupported parameter annotation %s", Describe(ann))
			} else {
				ev.NeedConcrete(ann, p.Annotation.Span(), "a parameter annotation")
			}
			kfr.env.set(pname, Poison(p.Loc))
		}
	}
}

// launchArg records v, a bind line's value, as scalar parameter vr's
// value for the launch the memory figures count.
func (ev *Evaluator) launchArg(ks *KernelState, vr *ir.Var, v Value, p *syntax.Param) {
	n, ok := v.(*IntV)
	if !ok || (vr.Type.Code != ir.Int && vr.Type.Code != ir.UInt) {
		if !IsErr(v) {
			ev.Report(diag.Errorf(p.Loc, CodeDirective, "a launch value binds an integer scalar parameter to an integer: `%s` is %s, given %s", p.Name.Id, vr.Type, Describe(v)))
		}
		return
	}
	ks.K.Func.LaunchArgs = append(ks.K.Func.LaunchArgs, ir.LaunchArg{Var: vr, Value: n.V})
}

// launchNames returns the names a bind line above a @T.prim_func may
// give: its parameters, and the scalars its body declares as runtime
// extents (`batch_size = T.int32()`), which TVM makes launch arguments
// too (implicitParam).
func launchNames(def *syntax.FunctionDef) map[string]bool {
	out := paramNames(def.Params, false)
	for n := range implicitNames(def) {
		out[n] = true
	}
	return out
}

// implicitNames returns the names def's body assigns a symbolic integer
// (`n = T.int32()`, a dtype called without arguments) at its top level.
func implicitNames(def *syntax.FunctionDef) map[string]bool {
	out := map[string]bool{}
	for _, st := range def.Body {
		a, ok := st.(*syntax.Assign)
		if !ok || len(a.Targets) != 1 {
			continue
		}
		n, ok := a.Targets[0].(*syntax.Name)
		c, isCall := a.Value.(*syntax.Call)
		if !ok || !isCall || len(c.Args) > 0 || len(c.Keywords) > 0 {
			continue
		}
		if at, ok := c.Func.(*syntax.Attribute); ok {
			if t, ok := ir.ParseDType(at.Attr.Id); ok && isIntType(t) {
				out[n.Id] = true
			}
		}
	}
	return out
}

func isListOrTuple(v Value) bool {
	switch v.(type) {
	case *ListV, *TupleV:
		return true
	}
	return false
}

// handleDatum is a bind line's value for a T.handle parameter.
type handleDatum struct {
	v Value
	p *syntax.Param
}

// MatchedParam is told by T.match_buffer that it bound parameter prm to
// buf: a bind line's list for the handle (`# tilels: bind
// cu_seqlens_h=[0, 512]`) is then buf's contents for the launch counted
// (launchData), as a T.Buffer parameter's is.
func (ev *Evaluator) MatchedParam(prm *ir.Param, buf *ir.Buffer) {
	ks := ev.Kern
	if ks == nil || ks.handleData == nil {
		return
	}
	if d, ok := ks.handleData[prm.Var]; ok {
		delete(ks.handleData, prm.Var)
		ev.launchData(ks, buf, d.v, d.p)
	}
}

// maxLaunchData bounds the elements a bind line may give a buffer.
const maxLaunchData = 1 << 16

// launchData records v, a bind line's list of integers, as buffer
// parameter buf's contents for the launch the memory figures count.
func (ev *Evaluator) launchData(ks *KernelState, buf *ir.Buffer, v Value, p *syntax.Param) {
	var elts []Value
	switch x := v.(type) {
	case *ListV:
		elts = x.Elts
	case *TupleV:
		elts = x.Elts
	}
	fail := func(why string) {
		if !IsErr(v) {
			ev.Report(diag.Errorf(p.Loc, CodeDirective, "a launch value binds an integer buffer parameter to a list of integers: `%s` %s", p.Name.Id, why))
		}
	}
	if elts == nil {
		fail(fmt.Sprintf("is given %s", Describe(v)))
		return
	}
	if buf.Dtype.Code != ir.Int && buf.Dtype.Code != ir.UInt {
		fail(fmt.Sprintf("holds %s", buf.Dtype))
		return
	}
	n := int64(maxLaunchData)
	if buf.RuntimeDim() < 0 {
		n = buf.NumElements()
	}
	if int64(len(elts)) > min(n, maxLaunchData) {
		fail(fmt.Sprintf("has %d elements, given %d", min(n, maxLaunchData), len(elts)))
		return
	}
	vals := make([]int64, len(elts))
	for i, e := range elts {
		x, ok := e.(*IntV)
		if !ok {
			fail(fmt.Sprintf("is given %s at index %d", Describe(e), i))
			return
		}
		vals[i] = x.V
	}
	ks.K.Func.LaunchData = append(ks.K.Func.LaunchData, ir.LaunchDatum{Buf: buf, Values: vals})
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

func (ev *Evaluator) newBuffer(a *AnnotV, name string, data *ir.Var, kind ir.BufferKind, span source.Span) *ir.Buffer {
	shape, shapeExpr, ok := ev.ParamShapeArg(a.Shape, a.Shape.Span(), kind == ir.ParamBuffer)
	if !ok {
		return nil
	}
	scope := a.Scope
	if scope == "" {
		scope = "global"
	}
	buf := &ir.Buffer{Name: name, Data: data, Shape: shape, ShapeExpr: shapeExpr, Dtype: a.DT, Scope: scope, Kind: kind, Span: span}
	if shapeExpr != nil {
		return ev.RuntimeShapeBuffer(buf, a.Layout, span)
	}
	buf.Layout = ev.LayoutArg(a.Layout, span, buf)
	return buf
}

func (ev *Evaluator) AddBufferSite(b *ir.Buffer, nameSpan, declSpan, layoutSpan source.Span) {
	if ev.Kern != nil {
		ev.Kern.K.Buffers = append(ev.Kern.K.Buffers, BufferSite{Buf: b, NameSpan: nameSpan, DeclSpan: declSpan, LayoutSpan: layoutSpan})
	}
}

// RequireKernel reports a device-only construct used outside a kernel body.
func (ev *Evaluator) RequireKernel(c *Call, what string) bool {
	if ev.Kern != nil && ev.Emit != nil {
		return true
	}
	ev.Errorf(c.At, CodeType, "%s is only allowed inside a prim_func body", what)
	return false
}

// hintNames returns the target names of the assignment whose value is c.
func (ev *Evaluator) HintNames(c *Call) ([]string, []source.Span) {
	if ev.hint != nil && c.Node != nil && ev.hint.call == c.Node {
		return ev.hint.names, ev.hint.spans
	}
	return nil, nil
}

func (ev *Evaluator) HintName(c *Call, def string) (string, source.Span) {
	names, spans := ev.HintNames(c)
	if len(names) == 1 {
		return names[0], spans[0]
	}
	return def, source.NoSpan
}

// ShapeArg converts a static shape: an int or a sequence of ints.
func (ev *Evaluator) ShapeArg(v Value, span source.Span) ([]int64, bool) {
	if v == nil {
		ev.Errorf(span, CodeType, "missing buffer shape")
		return nil, false
	}
	if IsErr(v) {
		ev.NeedConcrete(v, span, "a buffer shape")
		return nil, false
	}
	var elts []Value
	if _, ok := ToInt(v); ok {
		elts = []Value{v}
	} else if IsSeq(v) {
		elts = SeqElts(v)
	} else {
		ev.Errorf(span, CodeType, "buffer shape must be an integer or a tuple of integers, got %s", Describe(v))
		return nil, false
	}
	out := make([]int64, len(elts))
	for i, e := range elts {
		n, ok := ToInt(e)
		if !ok {
			if IsErr(e) {
				ev.NeedConcrete(e, span, "a buffer shape")
				return nil, false
			}
			if ex, isExpr := e.(*ExprV); isExpr {
				ev.Warnf(span, CodeUnresolved, "not modelled: dynamic buffer dimension `%s` (dimension %d of this shape); tilels models a runtime extent only as the outermost dimension of a parameter buffer, over scalar parameters, or of a view over a data pointer, so the tile calls and element accesses of this buffer are not modelled", Clip(ExprString(ex.E), 60), i)
				return nil, false
			}
			ev.Errorf(span, CodeType, "buffer shape must be a tuple of integers, got %s", Describe(v))
			return nil, false
		}
		if n <= 0 {
			ev.Errorf(span, CodeType, "buffer shape must be positive, got %d in dimension %d", n, i)
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// LayoutArg converts a layout= argument for buf (nil means absent, i.e.
// "default"). It also checks that the layout covers the buffer's shape.
func (ev *Evaluator) LayoutArg(v Value, span source.Span, buf *ir.Buffer) layout.Layout {
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
		if scopeHasNoDefault { // a Trainium annotation ("PF"): Hooks.TrainiumLayout
			tl := ev.hooks().TrainiumLayout
			if tl == nil {
				break // without the library: opaque
			}
			l, msg := tl(x.V, buf.Shape, buf.Scope == "trn.psum")
			if msg != "" {
				ev.Errorf(span, CodeType, "%s", msg)
				return nil
			}
			return l
		}
		ev.Errorf(span, CodeType, "unsupported layout string %s", Repr(x))
	case *LayoutV:
		ev.checkLayoutCovers(x.L, span, buf)
		return x.L
	case *SpecV:
		ev.Errorf(span, CodeType, "layout must be a TileLayout, got a layout spec; wrap it in TileLayout(...)")
	default:
		if p, ok := v.(PartialValue); ok {
			// a library value modelled for some uses only (a layout with
			// runtime strides, tirxlib's RuntimeLayoutV)
			why, at := p.Unmodelled()
			if !at.IsValid() {
				at = span
			}
			ev.Warnf(at, CodeUnresolved, "not modelled: %s", why)
		} else if IsErr(v) {
			ev.NeedConcrete(v, span, "a layout")
		} else {
			ev.Errorf(span, CodeType, "layout must be a Layout, \"default\" or None, got %s", Describe(v))
		}
	}
	if ev.Kern != nil {
		ev.Kern.BadLayout[buf] = true
	}
	return nil
}

// PartialValue is a library value the evaluation models for some uses
// only (a layout with runtime strides: its apply); Unmodelled says what
// is not modelled when it is used for another (a buffer's layout), and
// where (NoSpan: at the use).
type PartialValue interface {
	Value
	Unmodelled() (string, source.Span)
}

func (ev *Evaluator) checkLayoutCovers(l layout.Layout, span source.Span, buf *ir.Buffer) {
	if c, ok := l.(*layout.ComposeLayout); ok && layout.IsTrivial(c.Tile) {
		return // a bare swizzle applies to any shape
	}
	size := layout.Size(l, nil)
	n := buf.NumElements()
	if size != n {
		ev.Warnf(span, CodeShapeMismatch, "layout %s covers %d elements but buffer `%s` of shape %s has %d",
			l.String(), size, buf.Name, ShapeStr(buf.Shape), n)
	}
}

func ShapeStr(s []int64) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprint(x)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (ev *Evaluator) NoteLayout(v Value) {
	if ev.Kern == nil {
		return
	}
	if l, ok := v.(*LayoutV); ok && len(ev.Kern.K.Layouts) < maxLayoutSites && l.At.IsValid() && !ev.Kern.layoutSeen[l.At] {
		ev.Kern.layoutSeen[l.At] = true
		ev.Kern.K.Layouts = append(ev.Kern.K.Layouts, LayoutSite{Span: l.At, Layout: l.L})
	}
}

// ScalarOf is the element buf[0] of a one-element buffer value.
func ScalarOf(v Value, span source.Span) Value {
	b, ok := v.(*BufferV)
	if !ok {
		return v
	}
	// fresh: `x = T.local_scalar(...)` names the buffer and binds x to its
	// element (parser.py bind_assign_value, scalar_wrapper), no copy.
	return &ExprV{Base: Base{span}, E: &ir.Load{Buf: b.B, Indices: []ir.Expr{&ir.IntImm{Value: 0, Type: ir.Int32, Span: span}}, Span: span}, Fresh: true}
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

// loopValue builds a LoopV from (extent) or (start, stop) arguments.
func (ev *Evaluator) LoopValue(what string, kind ir.ForKind, c *Call, args []Value) Value {
	if e := FirstErr(args...); e != nil {
		if ev.Kern != nil {
			return ev.NeedConcrete(e, e.Span(), what+" bounds")
		}
		return e
	}
	if len(args) == 3 {
		if n, ok := ToInt(args[2]); !ok || n != 1 {
			return ev.Errorf(args[2].Span(), CodeType, "%s over device values needs step 1", what)
		}
		args = args[:2]
	}
	exprs := make([]ir.Expr, len(args))
	for i, a := range args {
		e, ok := ev.ToIR(a, ir.Int32)
		if !ok || ExprType(e).IsFloat() {
			return ev.Errorf(a.Span(), CodeType, "%s bound must be an integer, got %s", what, Describe(a))
		}
		exprs[i] = e
	}
	lv := &LoopV{Base: Base{c.At}, What: what, Kind: kind}
	if len(exprs) == 1 {
		lv.Mins = []ir.Expr{&ir.IntImm{Value: 0, Type: ir.Int32, Span: c.At}}
		lv.Extents = exprs
	} else {
		lv.Mins = exprs[:1]
		lv.Extents = []ir.Expr{SimplifySub(exprs[1], exprs[0], c.At)}
	}
	return lv
}

// CastTo converts v to dt: Python numbers become typed constants.
func (ev *Evaluator) CastTo(v Value, dt ir.DataType, vspan, span source.Span) Value {
	if IsErr(v) {
		return v
	}
	if IsPyNum(v) {
		e, _ := ev.ToIR(v, dt)
		switch x := e.(type) {
		case *ir.IntImm:
			if dt.IsFloat() {
				return &ExprV{Base: Base{span}, E: &ir.FloatImm{Value: float64(x.Value), Type: dt, Span: span}}
			}
			x.Type, x.Span = dt, span
			r := ev.slabs.exprs.new()
			*r = ExprV{Base: Base{span}, E: x}
			return r
		case *ir.FloatImm:
			if !dt.IsFloat() {
				return &ExprV{Base: Base{span}, E: &ir.IntImm{Value: int64(x.Value), Type: dt, Span: span}}
			}
			x.Type, x.Span = dt, span
			return &ExprV{Base: Base{span}, E: x}
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
				return &ExprV{Base: Base{span}, E: &ir.FloatImm{Value: f, Type: dt, Span: span}}
			}
		}
		return ev.Errorf(vspan, CodeType, "cannot cast %s to %s", Describe(v), dt)
	}
	if ExprType(ex.E) == dt {
		return ex
	}
	r := ev.slabs.casts.new()
	r.c = ir.Cast{To: dt, X: ex.E, Span: span}
	r.v = ExprV{Base: Base{span}, E: &r.c}
	return &r.v
}

// exprCast is an ExprV and the cast it holds, allocated together.
type exprCast struct {
	v ExprV
	c ir.Cast
}

func (ev *Evaluator) dtypeCall(d *DTypeV, c *Call) Value {
	if !d.Ctor {
		return ev.Errorf(c.FnSpan, CodeType, "'DataType' object is not callable")
	}
	v := c.Arg(0, "expr")
	if v == nil {
		name, sp := ev.HintName(c, "v")
		if !sp.IsValid() {
			sp = c.At
		}
		vr := &ir.Var{Name: name, Type: d.DT, Span: sp}
		if ev.Kern != nil {
			ev.Kern.fresh = append(ev.Kern.fresh, vr) // (unboundVars)
		}
		return &ExprV{Base: Base{c.At}, E: vr, Fresh: true}
	}
	return ev.CastTo(v, d.DT, c.ArgSpan(0, "expr"), c.At)
}

// IntrinsicCall calls a T.cuda.* / T.ptx.* intrinsic: an ir.Call whose Op
// is the dotted path after T ("cuda.cta_sync", "ptx.mbarrier.init").
func (ev *Evaluator) IntrinsicCall(f *IntrinsicV, c *Call) Value {
	ev.CheckSurfaceName("T.", f.Path, c.FnSpan, "") // release_surface.go
	if h := ev.hooks().StrippedIntrinsic; h != nil {
		if v, ok := h(ev, f.Path, c); ok {
			return v // a call a regular compilation strips (stripped.go)
		}
	}
	if f.Path == "cuda.ldg" && len(c.Kwargs) > 0 {
		return ev.ldgCall(f, c) // ldg.go
	}
	// The arguments, then the keyword arguments' values, converted into
	// one slice sized once.
	n := len(c.Args) + len(c.Kwargs)
	var args []ir.Expr
	if n > 0 {
		args = make([]ir.Expr, 0, n)
	}
	for i := 0; i < n; i++ {
		var a Value
		if i < len(c.Args) {
			a = c.Args[i]
		} else {
			a = c.Kwargs[i-len(c.Args)].V
		}
		if IsErr(a) {
			if ev.Kern != nil {
				return ev.NeedConcrete(a, a.Span(), "T."+f.Path+"'s arguments")
			}
			return a
		}
		var e ir.Expr
		switch x := a.(type) {
		case *StrV:
			e = &ir.StringImm{Value: x.V, Span: x.At}
		case *BufferV:
			e = &ir.BufferData{Buf: x.B, Span: x.At}
		case *DTypeV:
			e = &ir.StringImm{Value: x.DT.String(), Span: x.At}
		case *IntrinsicV:
			// an operand marker such as T.ptx.SINK
			ev.Warnf(x.At, CodeUnresolved, "not modelled: `T.%s` as an operand of T.%s; statement ignored", x.Path, f.Path)
			return Poison(c.At)
		default:
			var ok bool
			if e, ok = ev.ToIR(a, ir.DataType{}); !ok {
				sp := a.Span()
				if i < len(c.ArgSpans) {
					sp = c.ArgSpans[i]
				}
				return ev.Errorf(sp, CodeType, "T.%s argument %d must be a scalar, got %s", f.Path, i, Describe(a))
			}
		}
		if i >= len(c.Args) && c.Kwargs[i-len(c.Args)].Name == "pred" &&
			(strings.HasPrefix(f.Path, "ptx.cp.async.ca.") || strings.HasPrefix(f.Path, "ptx.cp.async.cg.")) {
			// cp.async's pred= is the @p guard, not the src-size its
			// place would fill (ir.OpPredGuard)
			e = &ir.Call{Op: ir.OpPredGuard, Args: []ir.Expr{e}, Type: ir.UInt32, Span: e.Pos()}
		}
		args = append(args, e)
	}
	if (f.Path == ir.OpCpAsyncWait || f.Path == ir.OpCpAsyncBulkWait) && len(args) == 0 {
		args = append(args, &ir.IntImm{Value: 0, Type: ir.Int32, Span: c.At}) // TVM's default n=0
	}
	if f.Path == "cuda.sm100_2sm_leader_smem_addr" && len(args) == 1 {
		// bitwise_and(cuda_cvta_generic_to_shared(ptr), 0xFEFFFFFF)
		// (backend/cuda/op.py): the leader CTA's shared-window address of
		// a 2-SM pair
		cvta := &ir.Call{Op: "cuda.cvta_generic_to_shared", Args: args, Type: ir.UInt32, Span: c.At}
		mask := &ir.IntImm{Value: 0xFEFFFFFF, Type: ir.UInt32, Span: c.At}
		return &ExprV{Base: Base{c.At}, E: &ir.Binary{Op: ir.BitAnd, A: cvta, B: mask, Span: c.At}}
	}
	var t ir.DataType
	op := f.Path
	if rt, ok := cudaReturnTypes[f.Path]; ok {
		t = rt // (so that `x = T.cuda.ballot_sync(...)` declares a scalar of that type)
	}
	if f.Path == "cuda.func_call" {
		// return_type= (default "void"): the value's type
		for _, kw := range c.Kwargs {
			if s, ok := kw.V.(*StrV); ok && kw.Name == "return_type" {
				if dt, ok := ParseDType(s.V); ok {
					t = dt
				}
			}
		}
	}
	if strings.HasSuffix(f.Path, "elect_sync") {
		t = ir.Int32
		if f.Path == "cuda.elect_sync" {
			op = ir.OpElectSync // T.cuda.elect_sync is ptx_elect_sync in 0.25 (backend/cuda/script.py)
		}
	}
	x := &exprCall{c: ir.Call{Op: op, Args: args, Type: t, Span: c.At}}
	x.v = ExprV{Base: Base{c.At}, E: &x.c}
	return &x.v
}

// exprCall is an ExprV and the call it holds, allocated together.
type exprCall struct {
	v ExprV
	c ir.Call
}

func (ev *Evaluator) markerCall(m *MarkerV, c *Call) Value {
	switch m.Name {
	case "T.prim_func", "T.jit", "T.inline", "T.macro":
		return &MarkerV{Base: Base{c.At}, Name: m.Name}
	case "T.Buffer":
		if _, hasData := c.Kw("data"); hasData && ev.Kern != nil && ev.Emit != nil {
			return ev.libDeclBuffer(c) // T.Buffer(..., data=...) in a body declares a view
		}
		return ev.bufferAnnot(c)
	case "T.handle":
		return &MarkerV{Base: Base{c.At}, Name: "T.handle"}
	case "T.TensorMap":
		// the type of a tensor-map descriptor: a kernel parameter's
		// annotation (kernelParams), a T.let's
		if !ev.CheckArgs(c, "TensorMap", 0) {
			return Poison(c.At)
		}
		return &MarkerV{Base: Base{c.At}, Name: "T.TensorMap()"}
	}
	return ev.Errorf(c.FnSpan, CodeType, "'%s' object is not callable", m.Name)
}

// bufferAnnot evaluates T.Buffer(shape, dtype, scope=..., layout=...).
func (ev *Evaluator) bufferAnnot(c *Call) Value {
	a := &AnnotV{Base: Base{c.At}, Kind: "buffer", DT: ir.Float32}
	a.Shape = c.Arg(0, "shape")
	if a.Shape == nil {
		return ev.Errorf(c.At, CodeType, "T.Buffer needs a shape")
	}
	if d := c.Arg(1, "dtype"); d != nil {
		dt, ok := ev.DtypeOf(d, c.ArgSpan(1, "dtype"))
		if !ok {
			return Poison(c.At)
		}
		a.DT = dt
	}
	if s, ok := c.Kw("scope"); ok {
		if str, ok := s.(*StrV); ok {
			a.Scope = str.V
		}
	}
	if l, ok := c.Kw("layout"); ok {
		a.Layout = l
	}
	return a
}

// execAnnAssign handles `x: T.int32 = e`, `x: T.let = e`, `v: T.f32[8]`.
func (ev *Evaluator) execAnnAssign(fr *frame, s *syntax.AnnAssign) {
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
				ev.Errorf(s.Loc, CodeType, "T.let requires a value")
				return
			}
			if p, ok := value.(*PackedPairV); ok {
				// a two-lane vector: its bits are bound (packed_pair.go)
				vr := &ir.Var{Name: name.Id, Type: ir.UInt32, Span: name.Loc}
				ev.EmitStmt(&ir.Let{Var: vr, Value: p.Bits, Span: s.Loc})
				fr.env.set(name.Id, &PackedPairV{Base: Base{name.Loc}, Bits: vr, Elem: p.Elem})
				return
			}
			e, ok := ev.ToIR(value, ir.DataType{})
			if !ok {
				if IsErr(value) {
					fr.env.set(name.Id, value)
					return
				}
				ev.Errorf(s.Value.Span(), CodeType, "T.let expects a scalar expression, got %s", Describe(value))
				return
			}
			t := ExprType(e)
			if a.Arg != nil {
				if d, ok := a.Arg.(*DTypeV); ok {
					t = d.DT
				}
			}
			vr := &ir.Var{Name: name.Id, Type: t, Span: name.Loc}
			ev.EmitStmt(&ir.Let{Var: vr, Value: e, Span: s.Loc})
			ev.notePtrLet(vr, e)
			fr.env.set(name.Id, &ExprV{Base: Base{name.Loc}, E: vr})
			return
		}
	case *DTypeV:
		if a.Ctor {
			vr := &ir.Var{Name: name.Id, Type: a.DT, Span: name.Loc}
			var init ir.Expr
			if value != nil {
				cv := ev.CastTo(value, a.DT, s.Value.Span(), s.Value.Span())
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
			ev.Kern.Mutable[vr] = true
			ev.EmitStmt(&ir.Let{Var: vr, Value: init, Mutable: true, Span: s.Loc})
			fr.env.set(name.Id, &ExprV{Base: Base{name.Loc}, E: vr})
			return
		}
	case *AnnotV:
		if a.Kind == "local" {
			if value != nil {
				ev.Errorf(s.Value.Span(), CodeType, "a register array declaration takes no value")
			}
			shape, ok := ev.ShapeArg(a.Shape, s.Annotation.Span())
			if !ok {
				fr.env.set(name.Id, Poison(s.Loc))
				return
			}
			buf := &ir.Buffer{Name: name.Id, Shape: shape, Dtype: a.DT, Scope: "local", Kind: ir.AllocBuffer, Span: s.Loc}
			buf.Layout = layout.RowMajor(shape...)
			buf.Data = &ir.Var{Name: name.Id, Type: ir.HandleT, Span: name.Loc}
			ev.AddBufferSite(buf, name.Loc, s.Loc, source.NoSpan)
			ev.EmitStmt(&ir.Alloc{Buf: buf, Span: s.Loc})
			fr.env.set(name.Id, &BufferV{Base{name.Loc}, buf})
			return
		}
	}
	if value != nil {
		ev.assignName(fr, name, value, s.Value.Span(), true)
	} else if !IsErr(ann) {
		ev.Errorf(s.Annotation.Span(), CodeType, "unsupported annotation %s in a prim_func body", Describe(ann))
	}
}

// ---- buffers: indexing, stores, attributes ----

// BufferIndex evaluates buf[idx]: a scalar load when every dimension has
// a scalar index, else a region (spec §1.4).
func (ev *Evaluator) BufferIndex(bv *BufferV, idx []Value, e *syntax.Subscript) Value {
	buf := bv.B
	if len(idx) == 1 && IsSeq(idx[0]) {
		idx = SeqElts(idx[0])
	}
	if e := FirstErr(idx...); e != nil {
		if ev.Kern != nil {
			return ev.NeedConcrete(e, e.Span(), "a buffer index")
		}
		return e
	}
	nd := len(buf.Shape)
	if len(idx) > nd {
		return ev.Errorf(e.Index.Span(), CodeType, "too many indices for buffer `%s` of rank %d: %d", buf.Name, nd, len(idx))
	}
	region := len(idx) < nd
	for _, x := range idx {
		if _, ok := x.(*SliceV); ok {
			region = true
		}
	}
	// A scalar load needs no extents (nor their unit constants): one
	// allocation for both halves when it is a region.
	var mins, exts []ir.Expr
	if region {
		both := make([]ir.Expr, 2*nd)
		mins, exts = both[:nd:nd], both[nd:]
	} else if nd <= slabSize {
		mins = ev.slabs.irExprs.take(nd)
	} else {
		mins = make([]ir.Expr, nd)
	}
	for d := 0; d < nd; d++ {
		sp := e.Index.Span()
		if d >= len(idx) {
			mins[d] = &ir.IntImm{Value: 0, Type: ir.Int32, Span: e.Loc}
			exts[d] = DimExtent(buf, d, e.Loc)
			continue
		}
		x := idx[d]
		if x.Span().IsValid() {
			sp = x.Span()
		}
		if s, ok := x.(*SliceV); ok {
			region = true
			if _, none := s.Step.(*NoneV); !none {
				if n, ok := ToInt(s.Step); !ok || n != 1 {
					return ev.Errorf(s.Step.Span(), CodeType, "buffer region slice step must be 1, got %s", Describe(s.Step))
				}
			}
			var lo, hi ir.Expr
			if _, none := s.Lo.(*NoneV); none {
				lo = &ir.IntImm{Value: 0, Type: ir.Int32, Span: sp}
			} else if lo, ok = ev.IndexExpr(s.Lo); !ok {
				return ev.Errorf(s.Lo.Span(), CodeType, "buffer index must be an integer, got %s", Describe(s.Lo))
			}
			if _, none := s.Hi.(*NoneV); none {
				hi = DimExtent(buf, d, sp)
			} else if hi, ok = ev.IndexExpr(s.Hi); !ok {
				return ev.Errorf(s.Hi.Span(), CodeType, "buffer index must be an integer, got %s", Describe(s.Hi))
			}
			mins[d], exts[d] = lo, SimplifySub(hi, lo, sp)
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
				return ev.Errorf(sp, CodeOutOfBounds, "region %s:%s is out of bounds for dimension %d of `%s` with extent %d",
					ExprString(lo), ExprString(hi), d, buf.Name, buf.Shape[d])
			}
			continue
		}
		ix, ok := ev.IndexExpr(x)
		if !ok {
			return ev.Errorf(sp, CodeType, "buffer index must be an integer or a slice, got %s", Describe(x))
		}
		if n, ok := ir.ConstInt(ix); ok && (n < 0 || n >= buf.Shape[d] && !runtimeDim(buf, d)) {
			return ev.Errorf(sp, CodeOutOfBounds, "index %d is out of bounds for dimension %d of `%s` with extent %d", n, d, buf.Name, buf.Shape[d])
		}
		mins[d] = ix
		if region {
			exts[d] = &ir.IntImm{Value: 1, Type: ir.Int32, Span: sp}
		}
	}
	if region {
		return &RegionV{Base{e.Loc}, &ir.Region{Buf: buf, Min: mins, Extent: exts, Span: e.Loc}}
	}
	if ev.checkDirectAccess(buf, e.Loc) {
		return Poison(e.Loc)
	}
	if buf.InsideSwizzle() {
		return &OpaqueV{Base{e.Loc}, insideSwizzleWhy(buf, "an element")}
	}
	l := ev.slabs.loads.new()
	l.l = ir.Load{Buf: buf, Indices: mins, Span: e.Loc}
	l.v = ExprV{Base: Base{e.Loc}, E: &l.l}
	return &l.v
}

// exprLoad is an ExprV and the load it holds, allocated together.
type exprLoad struct {
	v ExprV
	l ir.Load
}

// checkDirectAccess reports a scalar access to a buffer whose layout puts
// elements on threads (TVM LowerTIRx).
func (ev *Evaluator) checkDirectAccess(buf *ir.Buffer, span source.Span) bool {
	if t, ok := buf.Layout.(*layout.TileLayout); ok && t.HasThreadAxis() {
		ev.Errorf(span, CodeType, "Cannot lower direct BufferLoad/BufferStore on a buffer with thread-axis layout: unable to verify that the coordinate matches the current thread. Use .view() + .local() to decompose thread and memory axes.")
		return true
	}
	return false
}

func (ev *Evaluator) IndexExpr(v Value) (ir.Expr, bool) {
	e, ok := ev.ToIR(v, ir.Int32)
	if !ok || ExprType(e).IsFloat() {
		return nil, false
	}
	return e, true
}

func (ev *Evaluator) bufferStore(fr *frame, bv *BufferV, idx []Value, v Value, vspan source.Span, e *syntax.Subscript) {
	if ev.Emit == nil {
		ev.Errorf(e.Loc, CodeType, "buffer stores are only allowed inside a prim_func body")
		return
	}
	r := ev.BufferIndex(bv, idx, e)
	if IsErr(r) || IsErr(v) {
		if _, opaque := r.(*OpaqueV); opaque && ev.Kern != nil {
			ev.NeedConcrete(r, e.Loc, "the stored element") // (not dropped silently)
		} else if IsErr(v) && ev.Kern != nil {
			ev.NeedConcrete(v, vspan, "the stored value")
		}
		return
	}
	ld, ok := r.(*ExprV)
	if !ok {
		ev.Errorf(e.Loc, CodeType, "cannot assign to buffer region %s; use Tx.copy or Tx.fill", ev.Text(e.Loc))
		return
	}
	load := ld.E.(*ir.Load)
	val, ok := ev.ToIR(v, bv.B.Dtype)
	if !ok {
		ev.Errorf(vspan, CodeType, "cannot store %s into buffer `%s`", Describe(v), bv.B.Name)
		return
	}
	if t := ExprType(val); t.IsValid() && t != bv.B.Dtype {
		val = &ir.Cast{To: bv.B.Dtype, X: val, Span: val.Pos()}
	}
	ev.EmitStmt(&ir.Store{Buf: bv.B, Indices: load.Indices, Value: val, Span: source.Join(e.Loc, vspan)})
}

func (ev *Evaluator) BufferAttr(bv *BufferV, name string, span source.Span) Value {
	buf := bv.B
	if buf.InsideSwizzle() {
		switch name {
		case "ptr_to", "access_ptr", "elem_offset_of", "byte_offset_of", "elem_offset", "layout", "local", "vload", "vstore":
			return &OpaqueV{Base{span}, insideSwizzleWhy(buf, "Buffer."+name)}
		}
	}
	if buf.RuntimeDim() >= 0 { // dynamic_shape.go
		if v := runtimeShapeAttr(buf, name, span); v != nil {
			return v
		}
	}
	switch name {
	case "data":
		return &ExprV{Base: Base{span}, E: &ir.BufferData{Buf: buf, Span: span}}
	case "shape":
		out := make([]Value, len(buf.Shape))
		for i, s := range buf.Shape {
			out[i] = &IntV{Base{span}, s}
		}
		return &TupleV{Base{span}, out}
	case "dtype":
		return &StrV{Base{span}, buf.Dtype.String()}
	case "name":
		return &StrV{Base{span}, buf.Name}
	case "ndim":
		return &IntV{Base{span}, int64(len(buf.Shape))}
	case "elem_offset":
		if buf.ElemOffsetExpr != nil { // tirxlib/buffer_view.go
			return &ExprV{Base: Base{span}, E: ir.AddE(buf.ElemOffsetExpr, ir.Const(buf.ElemOffset))}
		}
		return &IntV{Base{span}, buf.ElemOffset}
	case "layout":
		if buf.Layout == nil {
			return &NoneV{Base{span}}
		}
		return &LayoutV{Base: Base{span}, L: buf.Layout}
	case "scope":
		return Method("Buffer.scope", func(ev *Evaluator, c *Call) Value { return &StrV{Base{c.At}, buf.Scope} })
	case "vload":
		return Method("Buffer.vload", func(ev *Evaluator, c *Call) Value { return ev.vload(buf, c) })
	case "ptr_to":
		return Method("Buffer.ptr_to", func(ev *Evaluator, c *Call) Value {
			if !ev.CheckArgs(c, "ptr_to", 1, "indices") {
				return Poison(c.At)
			}
			idx, bad := ev.elementIndices(buf, c)
			if bad != nil {
				return bad
			}
			return &ExprV{Base: Base{c.At}, E: &ir.AddressOf{Buf: buf, Indices: idx, Span: c.At}}
		})
	case "allocated_addr":
		// A list of the tensor-memory address expression (allocated_addr=).
		if buf.AllocatedAddr == nil {
			return &NoneV{Base{span}}
		}
		return &ListV{Base{span}, []Value{&ExprV{Base: Base{span}, E: buf.AllocatedAddr}}}
	case "access_ptr":
		// buf.access_ptr(access_mask, ptr_type="handle", content_lanes=1,
		// offset=0, extent=None): a pointer to the element at flat offset
		// (TVM's tvm_access_ptr; the mask and extent only annotate it).
		return Method("Buffer.access_ptr", func(ev *Evaluator, c *Call) Value {
			if !ev.CheckArgs(c, "access_ptr", 1, "access_mask", "ptr_type", "content_lanes", "offset", "extent") {
				return Poison(c.At)
			}
			var off ir.Expr = ir.Const(0)
			if v := c.Arg(3, "offset"); v != nil {
				if IsErr(v) {
					return v
				}
				e, ok := ev.IndexExpr(v)
				if !ok {
					return ev.Errorf(c.ArgSpan(3, "offset"), CodeType, "access_ptr offset must be an integer, got %s", Describe(v))
				}
				off = e
			}
			return &ExprV{Base: Base{c.At}, E: &ir.AddressOf{Buf: buf, Indices: []ir.Expr{off}, FlatIndex: true, Span: c.At}}
		})
	case "elem_offset_of", "byte_offset_of":
		return Method("Buffer."+name, func(ev *Evaluator, c *Call) Value { return ev.offsetOf(buf, name, c) })
	case "local":
		return Method("Buffer.local", func(ev *Evaluator, c *Call) Value { return ev.bufferView(buf, c, true) })
	case "view":
		return Method("Buffer.view", func(ev *Evaluator, c *Call) Value { return ev.bufferView(buf, c, false) })
	}
	if v := ev.libBufferAttr(buf, name, span); v != nil { // library.go: sub, permute, the rearranging views
		return v
	}
	// Buffer has many more methods and fields (sub, tile, ...); they
	// are opaque here.
	return &OpaqueV{Base{span}, buf.Name + "." + name}
}

// elementIndices reads the first argument of c, the indices of one
// element of buf (a sequence, or one index), as index expressions; bad is
// the error value when they are not.
func (ev *Evaluator) elementIndices(buf *ir.Buffer, c *Call) (idx []ir.Expr, bad Value) {
	elts := SeqElts(c.Args[0])
	if !IsSeq(c.Args[0]) {
		elts = []Value{c.Args[0]}
	}
	if len(elts) != len(buf.Shape) {
		return nil, ev.Errorf(c.ArgSpans[0], CodeType, "the number of indices %s does not match the shape of the buffer %s", Repr(c.Args[0]), ShapeStr(buf.Shape))
	}
	idx = make([]ir.Expr, len(elts))
	for i, x := range elts {
		if IsErr(x) {
			return nil, x
		}
		e, ok := ev.IndexExpr(x)
		if !ok {
			return nil, ev.Errorf(c.ArgSpans[0], CodeType, "buffer index must be an integer, got %s", Describe(x))
		}
		idx[i] = e
	}
	return idx, nil
}

// offsetOf is buf.elem_offset_of(indices, inner=True) (byte_offset_of:
// times the element's bytes): the element offset of the element at
// indices through the buffer's layout (TVM's BufferOffsetOfp), what
// access_ptr(offset=...) takes. A buffer of the default row-major layout
// (or none) gives the sum of the indices times its strides, at runtime
// indices too; another layout of memory only gives it at constant
// indices; inner=False adds the buffer's own element offset.
func (ev *Evaluator) offsetOf(buf *ir.Buffer, name string, c *Call) Value {
	if !ev.CheckArgs(c, name, 1, "indices", "inner") {
		return Poison(c.At)
	}
	idx, bad := ev.elementIndices(buf, c)
	if bad != nil {
		return bad
	}
	consts := make([]int64, len(idx))
	allConst := true
	for i, e := range idx {
		n, isConst := ir.ConstInt(e)
		consts[i], allConst = n, allConst && isConst
	}
	var off ir.Expr
	tl, isTile := buf.Layout.(*layout.TileLayout)
	switch {
	case buf.RuntimeDim() >= 0:
		return &OpaqueV{Base{c.At}, "Buffer." + name + " of a buffer with a runtime extent"}
	case buf.Layout == nil || layout.Equal(buf.Layout, layout.RowMajor(buf.Shape...)):
		off = ir.Const(0)
		stride := int64(1)
		for i := len(idx) - 1; i >= 0; i-- {
			off = ir.AddE(off, ir.MulE(idx[i], ir.Const(stride)))
			stride *= buf.Shape[i]
		}
		off = ir.SimplifyIndex(off)
	case isTile && tl.IsMemoryOnly() && allConst:
		off = ir.Const(tl.ApplyAxis(layout.FlattenCoord(consts, buf.Shape), layout.M))
	default:
		return &OpaqueV{Base{c.At}, "Buffer." + name + " through a layout other than row-major at runtime indices"}
	}
	if v := c.Arg(1, "inner"); v != nil && !Truthy(v) {
		if buf.ElemOffsetExpr != nil {
			return &OpaqueV{Base{c.At}, "Buffer." + name + "(inner=False) of a buffer at a runtime element offset"}
		}
		off = ir.SimplifyIndex(ir.AddE(off, ir.Const(buf.ElemOffset)))
	}
	if name == "byte_offset_of" {
		off = ir.SimplifyIndex(ir.MulE(off, ir.Const(int64(buf.Dtype.Bits)/8)))
	}
	return &ExprV{Base: Base{c.At}, E: off}
}

// bufferView implements buf.local(*shape, layout=None) and
// buf.view(*shape, layout=None): a decl_buffer over buf's storage.
func (ev *Evaluator) bufferView(buf *ir.Buffer, c *Call, local bool) Value {
	what := "Buffer.view"
	if local {
		what = "Buffer.local"
	}
	if !ev.RequireKernel(c, what) {
		return Poison(c.At)
	}
	if e := FirstErr(c.Args...); e != nil {
		return ev.NeedConcrete(e, e.Span(), what+" shape")
	}
	lv, hasLayout := c.Kw("layout")
	var shape []int64
	for i, a := range c.Args {
		n, ok := ToInt(a)
		if !ok {
			if s, isStr := a.(*StrV); isStr && !local && len(c.Args) == 1 && len(c.Kwargs) == 0 {
				return ev.bufferViewDtype(buf, c, s)
			}
			return ev.Errorf(c.ArgSpans[i], CodeType, "%s shape must be integers, got %s", what, Describe(a))
		}
		shape = append(shape, n)
	}
	var l layout.Layout
	badLayout := false
	switch {
	case hasLayout:
		nb := &ir.Buffer{Name: buf.Name, Shape: shape}
		l = ev.LayoutArg(lv, c.ArgSpan(-1, "layout"), nb)
		badLayout = ev.Kern.BadLayout[nb]
	case local:
		if buf.Layout == nil {
			if ev.Kern.BadLayout[buf] {
				return Poison(c.At)
			}
			return ev.Errorf(c.At, CodeMissingLayout, "buffer `%s` has no layout; .local() needs one", buf.Name)
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
			return ev.Errorf(c.At, CodeType, "Buffer.view needs a shape")
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
			return ev.Errorf(c.At, CodeShapeMismatch, "The shape of the buffer %s and the new shape %s are not compatible", ShapeStr(buf.Shape), ShapeStr(shape))
		}
	}
	name, nameSpan := ev.HintName(c, buf.Name+"_view")
	if local && !nameSpan.IsValid() {
		name = buf.Name + "_local"
	}
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: shape, Dtype: buf.Dtype, Scope: buf.Scope,
		Layout: l, ElemOffset: buf.ElemOffset, ElemOffsetExpr: buf.ElemOffsetExpr, Base: buf, Kind: ir.DeclBuffer, Span: c.At}
	if badLayout || (!hasLayout && ev.Kern.BadLayout[buf]) {
		ev.Kern.BadLayout[nb] = true
	}
	ev.AddBufferSite(nb, nameSpan, c.At, source.NoSpan)
	ev.libEmitView(nb) // library.go
	return &BufferV{Base{c.At}, nb}
}

// bufferViewDtype is buf.view(dtype): the same bytes as another element
// type, the last dimension scaled by the ratio of the element sizes and
// the element offset with it (tirx/buffer.py). A buffer laid out other
// than row-major needs the layout's pack/unpack, which tilels does not
// model: that view stays unknown.
func (ev *Evaluator) bufferViewDtype(buf *ir.Buffer, c *Call, s *StrV) Value {
	dt, ok := ev.DtypeOf(s, c.ArgSpans[0])
	if !ok {
		return Poison(c.At)
	}
	if buf.ElemOffsetExpr != nil && buf.Layout != nil && !layout.IsTrivial(buf.Layout) { // tirxlib/buffer_view.go
		return &OpaqueV{Base{c.At}, "Buffer.view(dtype) of a laid-out view at a runtime element offset"}
	}
	if len(buf.Shape) == 0 {
		return &OpaqueV{Base{c.At}, "Buffer.view(dtype) of a buffer without dimensions"}
	}
	if buf.Layout != nil && !layout.IsTrivial(buf.Layout) {
		return ev.libBufferViewDtypeLaidOut(buf, c, dt) // library.go
	}
	cur, to := int64(buf.Dtype.Bits), int64(dt.Bits)
	shape := append([]int64(nil), buf.Shape...)
	last := len(shape) - 1
	off := buf.ElemOffset
	// A view at a runtime element offset (o_ptr = T.decl_buffer(...,
	// elem_offset=out_offset), sparse_decode_head64.py's combine) moves
	// its offset as the reference's _buffer_view.view does:
	// elem_offset // ratio to a wider type, elem_offset * ratio to a
	// narrower one.
	var dyn ir.Expr
	switch {
	case to > cur:
		r := to / cur
		if to%cur != 0 || shape[last]%r != 0 {
			return ev.Errorf(c.At, CodeType, "Buffer.view(%s) of %s elements: the last dimension %d is not a multiple of %d", PyQuote(dt.String()), buf.Dtype, shape[last], r)
		}
		shape[last] /= r
		off /= r
		if buf.ElemOffsetExpr != nil {
			dyn, off = &ir.Binary{Op: ir.FloorDiv, A: ir.AddE(buf.ElemOffsetExpr, ir.Const(buf.ElemOffset)), B: ir.Const(r), Span: c.At}, 0
		}
	default:
		r := cur / to
		if cur%to != 0 {
			return ev.Errorf(c.At, CodeType, "Buffer.view(%s) of %s elements: the sizes do not divide", PyQuote(dt.String()), buf.Dtype)
		}
		shape[last] *= r
		off *= r
		if buf.ElemOffsetExpr != nil {
			dyn = ir.MulE(buf.ElemOffsetExpr, ir.Const(r))
		}
	}
	name, nameSpan := ev.HintName(c, buf.Name+"_view")
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: shape, Dtype: dt, Scope: buf.Scope,
		Layout: layout.RowMajor(shape...), ElemOffset: off, ElemOffsetExpr: dyn, Base: buf, Kind: ir.DeclBuffer, Span: c.At}
	ev.AddBufferSite(nb, nameSpan, c.At, source.NoSpan)
	ev.libEmitView(nb)
	return &BufferV{Base{c.At}, nb}
}

var ScopeIDKinds = map[string]ir.ScopeIDKind{
	"cta_id": ir.CTAID, "cluster_id": ir.ClusterID, "cta_id_in_cluster": ir.CTAIDInCluster,
	"thread_id": ir.ThreadID, "warp_id": ir.WarpID, "warpgroup_id": ir.WarpgroupID,
	"warp_id_in_wg": ir.WarpIDInWG, "lane_id": ir.LaneID, "thread_id_in_wg": ir.ThreadIDInWG,
}

// MathOps maps T.<name> scalar functions to an ir.BinOp (two operands) or
// to 0 for an ir.Call of that name.
var MathOps = map[string]ir.BinOp{
	"max": ir.Max, "min": ir.Min, "floordiv": ir.FloorDiv, "floormod": ir.FloorMod,
	"truncdiv": ir.Div, "truncmod": ir.FloorMod, "shift_left": ir.Shl, "shift_right": ir.Shr,
	"bitwise_and": ir.BitAnd, "bitwise_or": ir.BitOr, "bitwise_xor": ir.BitXor,
	"sqrt": 0, "exp": 0, "exp2": 0, "exp10": 0, "log": 0, "log2": 0, "log10": 0, "log1p": 0,
	"tanh": 0, "sigmoid": 0, "sin": 0, "cos": 0, "tan": 0, "rsqrt": 0, "erf": 0, "abs": 0, "fabs": 0,
	"floor": 0, "ceil": 0, "round": 0, "trunc": 0, "nearbyint": 0, "pow": 0, "fma": 0, "bitwise_not": 0,
	"popcount": 0, "clz": 0, "isnan": 0, "isinf": 0, "isfinite": 0, "copysign": 0, "fmod": 0, "hypot": 0,
}

// RegionIndex subscripts a buffer region (every release: the reference's
// BufferRegion, TensorRegion from 0.27, composes): each index is relative to
// the region's start in its dimension, a slice's bounds too (an omitted
// stop is the region's extent), and the result is the buffer subscripted
// at the composed positions, a region or an element. nvfp4_gemm.py's
// epilogue passes reg_all_16b[:, ln:ln+EPI_TILE] to an inline function
// that copies 16-column slices of it (0.25, 0.26 and 0.27 lower such a
// copy at the composed offset).
func (ev *Evaluator) RegionIndex(rv *RegionV, idx []Value, e *syntax.Subscript) Value {
	r := rv.R
	if len(idx) == 1 && IsSeq(idx[0]) {
		idx = SeqElts(idx[0])
	}
	if x := FirstErr(idx...); x != nil {
		if ev.Kern != nil {
			return ev.NeedConcrete(x, x.Span(), "a buffer region index")
		}
		return x
	}
	nd := len(r.Min)
	if len(idx) > nd {
		return ev.Errorf(e.Index.Span(), CodeType, "too many indices for a region of `%s` of rank %d: %d", r.Buf.Name, nd, len(idx))
	}
	at := func(x ir.Expr, sp source.Span) Value { return &ExprV{Base: Base{sp}, E: x} }
	abs := make([]Value, nd)
	for d := range nd {
		if d >= len(idx) {
			abs[d] = &SliceV{Base{e.Loc}, at(r.Min[d], e.Loc), at(ir.AddE(r.Min[d], r.Extent[d]), e.Loc), &NoneV{Base{e.Loc}}}
			continue
		}
		x := idx[d]
		sp := x.Span()
		if s, ok := x.(*SliceV); ok {
			lo, hi := r.Min[d], ir.AddE(r.Min[d], r.Extent[d])
			if _, none := s.Lo.(*NoneV); !none {
				l, ok := ev.IndexExpr(s.Lo)
				if !ok {
					return ev.Errorf(s.Lo.Span(), CodeType, "buffer index must be an integer, got %s", Describe(s.Lo))
				}
				lo = ir.AddE(r.Min[d], l)
			}
			if _, none := s.Hi.(*NoneV); !none {
				h, ok := ev.IndexExpr(s.Hi)
				if !ok {
					return ev.Errorf(s.Hi.Span(), CodeType, "buffer index must be an integer, got %s", Describe(s.Hi))
				}
				hi = ir.AddE(r.Min[d], h)
			}
			abs[d] = &SliceV{Base{sp}, at(lo, s.Lo.Span()), at(hi, s.Hi.Span()), s.Step}
			continue
		}
		ix, ok := ev.IndexExpr(x)
		if !ok {
			return ev.Errorf(sp, CodeType, "buffer index must be an integer or a slice, got %s", Describe(x))
		}
		abs[d] = at(ir.AddE(r.Min[d], ix), sp)
	}
	return ev.BufferIndex(&BufferV{Base{rv.At}, r.Buf}, abs, e)
}

// notePtrLet records v = e when e is a pointer value (KernelState.PtrLets).
func (ev *Evaluator) notePtrLet(v *ir.Var, e ir.Expr) {
	if ev.Kern == nil || !isPointerExpr(e) {
		return
	}
	if ev.Kern.PtrLets == nil {
		ev.Kern.PtrLets = map[*ir.Var]ir.Expr{}
	}
	ev.Kern.PtrLets[v] = e
}

// vload is Buffer.vload(indices, dtype): with a vector dtype "<t>x<n>" of
// the buffer's element type, n consecutive elements from indices along the
// last dimension, each bound to a scalar here (VectorV); with the
// buffer's own dtype, the element.
func (ev *Evaluator) vload(buf *ir.Buffer, c *Call) Value {
	if !ev.CheckArgs(c, "vload", 1, "begin", "dtype", "predicate") {
		return Poison(c.At)
	}
	if p := c.Arg(2, "predicate"); p != nil && !IsNoneV(p) {
		return &OpaqueV{Base{c.At}, "Buffer.vload(..., predicate=...)"}
	}
	lanes := int64(1)
	if d := c.Arg(1, "dtype"); d != nil && !IsNoneV(d) {
		s, ok := d.(*StrV)
		if !ok {
			return &OpaqueV{Base{c.At}, "Buffer.vload(...)"}
		}
		name, n := s.V, int64(1)
		if i := strings.LastIndex(name, "x"); i > 0 {
			if v, err := strconv.ParseInt(name[i+1:], 10, 64); err == nil && v > 1 {
				name, n = name[:i], v
			}
		}
		if name != buf.Dtype.String() {
			return ev.Errorf(c.ArgSpan(1, "dtype"), CodeType, "Buffer.vload dtype %s: its element type is not %s's %s", s.V, buf.Name, buf.Dtype)
		}
		lanes = n
	}
	idx, bad := ev.elementIndices(buf, c)
	if bad != nil {
		return bad
	}
	if lanes == 1 {
		return &ExprV{Base: Base{c.At}, E: &ir.Load{Buf: buf, Indices: idx, Span: c.At}}
	}
	if ev.Kern == nil || len(idx) == 0 {
		return &OpaqueV{Base{c.At}, "Buffer.vload(...)"}
	}
	v := &VectorV{Base: Base{c.At}, Elem: buf.Dtype}
	for i := range lanes {
		li := append(append([]ir.Expr(nil), idx[:len(idx)-1]...), ir.AddE(idx[len(idx)-1], ir.Const(i)))
		vr := &ir.Var{Name: buf.Name + "_lane" + strconv.FormatInt(i, 10), Type: buf.Dtype, Span: c.At}
		ev.EmitStmt(&ir.Let{Var: vr, Value: &ir.Load{Buf: buf, Indices: li, Span: c.At}, Span: c.At})
		v.Lanes = append(v.Lanes, vr)
	}
	return v
}

// unboundVars reports the variables the body declares without a value
// (`x = T.int32()`) and reads, but that nothing binds: neither a kernel
// parameter (a match_buffer shape makes one an implicit parameter), nor a
// let, loop or scope id. TVM's MakePackedAPI refuses such a kernel ("In
// PrimFunc k variables (x,) are used, but are not passed in as API
// arguments"); tilels printed a .cu that did not compile (a
// check_well_formed=False test of test_printer_tir_namespaces.py).
func (ev *Evaluator) unboundVars(ks *KernelState, name string) {
	if len(ks.fresh) == 0 {
		return
	}
	want := map[*ir.Var]bool{}
	for _, v := range ks.fresh {
		want[v] = true
	}
	for _, p := range ks.K.Func.Params {
		delete(want, p.Var)
	}
	body := &ir.Block{Stmts: append(append([]ir.Stmt(nil), ks.Host...), ks.Body...)}
	ir.WalkStmts(body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Let:
			delete(want, s.Var)
		case *ir.For:
			delete(want, s.Var)
		case *ir.ScopeID:
			for _, v := range s.Vars {
				delete(want, v)
			}
		}
	})
	if len(want) == 0 {
		return
	}
	var names []string
	var first *ir.Var
	for {
		v, _ := ir.FirstUse(body, want)
		if v == nil {
			break
		}
		if first == nil {
			first = v
		}
		names = append(names, v.Name)
		delete(want, v)
	}
	if first == nil {
		return
	}
	list := strings.Join(names, ", ")
	if len(names) == 1 {
		list += ","
	}
	ev.Errorf(first.Span, CodeType, "In PrimFunc %s variables (%s) are used, but are not passed in as API arguments", name, list)
}

// insideSwizzleWhy is what is not modelled of a view whose runtime offset
// lies inside its swizzle (ir.Buffer.OffsetInSwizzle): what of it.
func insideSwizzleWhy(buf *ir.Buffer, what string) string {
	return what + " of " + buf.Name + " (a view at a runtime offset inside its swizzle: only TMA copies of it are modelled)"
}

// InsideSwizzleOperand reports (and returns false for) a tile call's
// operand on a view whose runtime offset lies inside its swizzle, unless
// the call is a TMA copy: the hardware applies the swizzle to the address
// the copy starts at, which is the view's start; any other lowering would
// address its elements through the layout.
func (ev *Evaluator) InsideSwizzleOperand(tc *ir.TileCall, r *ir.Region, sp source.Span) bool {
	if tc.Op == "copy_async" && (tc.Dispatch == "tma" || tc.Dispatch == "tma_auto" || tc.Dispatch == "tma_explicit") {
		return true
	}
	ev.Warnf(sp, CodeUnresolved, "not modelled: Tx.%s over %s", tc.Op, insideSwizzleWhy(r.Buf, "a region"))
	return false
}
