package eval

import (
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// Call is one evaluated call: callee-independent argument values.
type Call struct {
	Node     *syntax.Call // nil for synthesized calls
	At       source.Span  // the whole call
	FnSpan   source.Span  // the callee expression
	Args     []Value
	ArgSpans []source.Span
	Kwargs   []Kwarg
	// spec marks a call made by a binding source (drive.go): every
	// parameter gets spec.given's value, else spec.extra's (a directive
	// line), else Options.Bindings', else its default, else an unbound
	// value. A pointer keeps call small (one is allocated per Python call).
	spec *specArgs
	Fr   *frame // the calling frame
}

// specArgs are the values a binding source passes (see call.spec).
type specArgs struct {
	given, extra []Binding
}

type Kwarg struct {
	Name  string
	V     Value
	At    source.Span // the keyword argument (name=value), or the **expr
	Vspan source.Span // the value expression (the **expr for expanded dicts)
}

func (ev *Evaluator) evalCall(fr *frame, e *syntax.Call) Value {
	if ev.Kern != nil && ev.maybeTileCall(e) {
		return ev.evalTileSite(fr, e)
	}
	return ev.evalCallNoSite(fr, e)
}

// maybeTileCall reports whether e's callee could be a tile primitive: an
// attribute named like one, or a plain name (a Tx op chosen from a dict).
func (ev *Evaluator) maybeTileCall(e *syntax.Call) bool {
	switch f := e.Func.(type) {
	case *syntax.Name:
		return true
	case *syntax.Attribute:
		return ev.libIsTileOp(f.Attr.Id)
	}
	return false
}

// evalTileSite evaluates a call inside a kernel that may be a tile call,
// recording it (with the unbound parameters its evaluation needed) for
// Kernel.Unresolved.
func (ev *Evaluator) evalTileSite(fr *frame, e *syntax.Call) Value {
	// The parameters needed while evaluating the call are those useUnbound
	// appends to ev.needs from here on (nested sites share the stack; the
	// outermost one truncates it). No allocation when nothing is unbound.
	mark := len(ev.needs)
	ev.collecting++
	var fn Value
	v := ev.evalCallWith(fr, e, &fn)
	ev.collecting--
	needs := ev.needs[mark:]
	switch f := fn.(type) {
	case *TxOpV:
		ev.noteSite(e, f.Op, f.Scope, needs)
	case *PoisonV, *UnboundV, *OpaqueV, *BuiltinV:
		if op, scope, ok := ev.tileCallSyntax(fr, e, ev.InOldDialect()); ok {
			ev.noteSite(e, op, scope, needs)
		}
	}
	if ev.collecting == 0 {
		ev.needs = ev.needs[:0]
	}
	return v
}

func (ev *Evaluator) evalCallNoSite(fr *frame, e *syntax.Call) Value {
	return ev.evalCallWith(fr, e, nil)
}

// evalCallWith evaluates e; the callee's value is stored in *fnOut when
// fnOut is not nil.
func (ev *Evaluator) evalCallWith(fr *frame, e *syntax.Call, fnOut *Value) Value {
	fn := ev.expr(fr, e.Func)
	if fnOut != nil {
		*fnOut = fn
	}
	c := ev.newCall(len(e.Args))
	c.Node, c.At, c.FnSpan, c.Fr = e, e.Loc, e.Func.Span(), fr
	// TMA fills what lies outside a global tensor (oob=), so the regions
	// written as copy_async arguments may extend past a global buffer; the
	// variants that cannot (ldgsts) decline such regions themselves.
	if op, ok := fn.(*TxOpV); ok && op.Op == "copy_async" && !ev.oobRegions {
		ev.oobRegions = true
		defer func() { ev.oobRegions = false }()
	}
	// Sized once: growing them by append was a third of the allocations
	// of evaluating calls (4 per 3-argument call; BenchmarkSessionFile).
	if n := len(e.Args); n > len(callBlock4{}.args) {
		c.Args, c.ArgSpans = make([]Value, 0, n), make([]source.Span, 0, n)
	}
	if n := len(e.Keywords); n > 0 {
		c.Kwargs = make([]Kwarg, 0, n)
	}
	for _, a := range e.Args {
		if st, ok := a.(*syntax.Starred); ok {
			v := ev.expr(fr, st.X)
			if IsErr(v) {
				c.Args = append(c.Args, v)
				c.ArgSpans = append(c.ArgSpans, st.Loc)
				continue
			}
			elts, ok := ev.Iterate(v, st.Loc)
			if !ok {
				return ev.Errorf(st.Loc, CodeType, "argument after * must be an iterable, not %s", v.TypeName())
			}
			if !ev.charge(st.Loc, "argument list", seqCost(int64(len(elts)), false)) {
				return Poison(e.Loc)
			}
			for _, x := range elts {
				c.Args = append(c.Args, x)
				c.ArgSpans = append(c.ArgSpans, st.Loc)
			}
			continue
		}
		c.Args = append(c.Args, ev.expr(fr, a))
		c.ArgSpans = append(c.ArgSpans, a.Span())
	}
	for _, k := range e.Keywords {
		v := ev.expr(fr, k.Value)
		if k.Name != nil {
			c.Kwargs = append(c.Kwargs, Kwarg{k.Name.Id, v, k.Loc, k.Value.Span()})
			continue
		}
		if IsErr(v) {
			if _, ok := v.(*PoisonV); !ok {
				c.Kwargs = append(c.Kwargs, Kwarg{"**", v, k.Loc, k.Value.Span()})
			}
			continue
		}
		d, ok := v.(*DictV)
		if !ok {
			ev.Errorf(k.Value.Span(), CodeType, "argument after ** must be a mapping, not %s", v.TypeName())
			continue
		}
		if !ev.charge(k.Loc, "argument list", mulCost(int64(len(d.Keys)), costEntry)) {
			return Poison(e.Loc)
		}
		for i, key := range d.Keys {
			s, ok := key.(*StrV)
			if !ok {
				ev.Errorf(k.Value.Span(), CodeType, "keywords must be strings")
				continue
			}
			c.Kwargs = append(c.Kwargs, Kwarg{s.V, d.Vals[i], k.Loc, k.Value.Span()})
		}
	}
	return ev.CallValue(fn, c)
}

// callBlock2 and callBlock4 hold a Call with room for its arguments and
// their spans: one allocation per evaluated call instead of three (the
// calls were a tenth of the allocations of a keystroke in a production
// file, BenchmarkKeystrokeProduction). Argument slices keep their
// capacity limit, so an append past it copies as before.
type callBlock2 struct {
	c     Call
	args  [2]Value
	spans [2]source.Span
}

type callBlock4 struct {
	c     Call
	args  [4]Value
	spans [4]source.Span
}

// newCall returns an empty Call whose Args and ArgSpans have room for n
// arguments when n is small (larger calls size them themselves).
// They come from the evaluator's slabs (slab.go).
func (ev *Evaluator) newCall(n int) *Call {
	switch {
	case n == 0:
		return ev.slabs.calls.new()
	case n <= 2:
		b := ev.slabs.calls2.new()
		b.c.Args, b.c.ArgSpans = b.args[:0:n], b.spans[:0:n]
		return &b.c
	case n <= 4:
		b := ev.slabs.calls4.new()
		b.c.Args, b.c.ArgSpans = b.args[:0:n], b.spans[:0:n]
		return &b.c
	}
	return ev.slabs.calls.new()
}

// CallValue calls fn.
func (ev *Evaluator) CallValue(fn Value, c *Call) Value {
	switch f := fn.(type) {
	case *FuncV:
		return ev.callFunc(f, c)
	case *ClassV:
		return ev.CallClass(f, c) // class.go
	case *BuiltinV:
		return f.Fn(ev, c)
	case *TxOpV:
		return ev.libTileCall(f, c) // library.go
	case *IntrinsicV:
		return ev.IntrinsicCall(f, c)
	case *DTypeV:
		return ev.dtypeCall(f, c)
	case *MarkerV:
		return ev.markerCall(f, c)
	case *OpaqueV:
		path := f.Path
		if !strings.HasSuffix(path, ")") {
			path += "(...)"
		}
		return &OpaqueV{Base{c.At}, path}
	case *PoisonV, *UnboundV:
		return fn
	case *KernelV:
		return &OpaqueV{Base{c.At}, f.K.Func.Name + "(...)"}
	case *JitV:
		return &OpaqueV{Base{c.At}, f.Def.Name.Id + "(...)"}
	case *EnumV:
		return ev.Errorf(c.FnSpan, CodeType, "'%s' object is not callable", f.Type)
	case *ModuleV:
		if f.Call != nil {
			return f.Call(ev, c)
		}
	}
	return ev.PyErrorf(c.FnSpan, "'%s' object is not callable", fn.TypeName())
}

// callFunc calls a user function (def or lambda).
func (ev *Evaluator) callFunc(fn *FuncV, c *Call) Value {
	if ev.depth >= maxCallDepth {
		return ev.Errorf(c.At, CodeBudget, "call depth exceeds %d", maxCallDepth)
	}
	ev.depth++
	defer func() { ev.depth-- }()
	env := ev.newDefScope(fn.Env, fn.Def)
	defer ev.noteScopeSize(fn.Def, env)
	if !ev.bindParams(fn, c, env) {
		return Poison(c.At)
	}
	defer ev.enterCall(fn, c.At)() // imports.go
	if fn.Def != nil {
		ev.entered[fn.Def] = true
		if ev.hasKernel[fn.Def] {
			recordArgs(fn, env)
		}
	}
	fr := &frame{env: env, tir: fn.TIR, fn: fn}
	if fn.Lambda != nil {
		return ev.expr(fr, fn.Lambda.Body)
	}
	switch ev.execBlock(fr, fn.Def.Body) {
	case ctrlReturn:
		if fr.ret == nil {
			return &NoneV{Base{c.At}}
		}
		return fr.ret
	case ctrlRaise:
		return Poison(c.At)
	}
	return &NoneV{Base{c.At}}
}

// bindParams binds c's arguments to fn's parameters in env, Python style.
func (ev *Evaluator) bindParams(fn *FuncV, c *Call, env *scope) bool {
	ps := fn.Params
	positional := append(append([]*syntax.Param(nil), ps.Posonly...), ps.Args...)
	bound := map[string]bool{}
	name := fn.Name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if c.spec != nil {
		binds := ev.Opts.Bindings[fn.Name]
		all := append(append([]*syntax.Param(nil), positional...), ps.Kwonly...)
		for _, p := range all {
			id := p.Name.Id
			if v, ok := lookupBinding(c.spec.given, id); ok {
				env.set(id, v)
			} else if v, ok := lookupBinding(c.spec.extra, id); ok {
				env.set(id, v)
			} else if v, ok := binds[id]; ok {
				env.set(id, v)
			} else if d, ok := fn.Defaults[p]; ok {
				env.set(id, d)
			} else {
				env.set(id, &UnboundV{Base{p.Name.Loc}, ev.originFor(fn, p)})
			}
		}
		if ps.Vararg != nil {
			env.set(ps.Vararg.Name.Id, &TupleV{Base{ps.Vararg.Loc}, nil})
		}
		if ps.Kwarg != nil {
			env.set(ps.Kwarg.Name.Id, NewDict(ps.Kwarg.Loc))
		}
		return true
	}
	var extra []Value
	for i, a := range c.Args {
		if i < len(positional) {
			env.set(positional[i].Name.Id, a)
			bound[positional[i].Name.Id] = true
		} else {
			extra = append(extra, a)
		}
	}
	if len(extra) > 0 {
		if ps.Vararg == nil {
			ev.PyErrorf(c.At, "%s() takes %d positional arguments but %d were given", name, len(positional), len(c.Args))
			return false
		}
	}
	if ps.Vararg != nil {
		env.set(ps.Vararg.Name.Id, &TupleV{Base{c.At}, extra})
	}
	var kwd *DictV
	if ps.Kwarg != nil {
		kwd = NewDict(c.At)
		env.set(ps.Kwarg.Name.Id, kwd)
	}
	for _, k := range c.Kwargs {
		if k.Name == "**" { // an opaque or unbound **mapping
			continue
		}
		var target *syntax.Param
		for _, p := range append(append([]*syntax.Param(nil), ps.Args...), ps.Kwonly...) {
			if p.Name.Id == k.Name {
				target = p
			}
		}
		if target == nil {
			if kwd == nil {
				ev.PyErrorf(k.At, "%s() got an unexpected keyword argument '%s'", name, k.Name)
				return false
			}
			ev.setEntry(kwd, &StrV{Base{k.At}, k.Name}, k.V, k.At)
			continue
		}
		if bound[k.Name] {
			ev.PyErrorf(k.At, "%s() got multiple values for argument '%s'", name, k.Name)
			return false
		}
		env.set(k.Name, k.V)
		bound[k.Name] = true
	}
	var missing []string
	for _, p := range append(append([]*syntax.Param(nil), positional...), ps.Kwonly...) {
		if bound[p.Name.Id] {
			continue
		}
		if d, ok := fn.Defaults[p]; ok {
			env.set(p.Name.Id, d)
			continue
		}
		missing = append(missing, "'"+p.Name.Id+"'")
	}
	if len(missing) > 0 {
		ev.PyErrorf(c.At, "%s() missing %d required argument%s: %s", name, len(missing), plural(len(missing)), strings.Join(missing, ", "))
		return false
	}
	if fn.Def != nil && ev.hasKernel[fn.Def] {
		ev.fillUnbound(fn, env)
	}
	return true
}

// fillUnbound gives the parameters of a kernel factory that were passed an
// unbound value (a pytest fixture, say) the value of the first directive
// line (or setting) of the factory, when it has one.
func (ev *Evaluator) fillUnbound(fn *FuncV, env *scope) {
	var lines [][]Binding
	for _, list := range [][]*syntax.Param{fn.Params.Posonly, fn.Params.Args, fn.Params.Kwonly} {
		for _, p := range list {
			if _, ok := env.vars[p.Name.Id].(*UnboundV); !ok {
				continue
			}
			if lines == nil {
				lines = ev.bindValues(fn.Def, fn.Name, paramNames(fn.Params, false))
				if len(lines) == 0 {
					return
				}
			}
			if v, ok := lookupBinding(lines[0], p.Name.Id); ok {
				env.set(p.Name.Id, v)
			}
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ---- argument helpers for builtins ----

// Arg returns positional argument i or keyword name (nil when absent).
func (c *Call) Arg(i int, name string) Value {
	if i >= 0 && i < len(c.Args) {
		return c.Args[i]
	}
	for _, k := range c.Kwargs {
		if k.Name == name {
			return k.V
		}
	}
	return nil
}

// ArgSpan is the span of positional argument i or of keyword name's value.
func (c *Call) ArgSpan(i int, name string) source.Span {
	if i >= 0 && i < len(c.Args) {
		return c.ArgSpans[i]
	}
	for _, k := range c.Kwargs {
		if k.Name == name {
			return k.Vspan
		}
	}
	return c.At
}

// Kw returns keyword argument name.
func (c *Call) Kw(name string) (Value, bool) {
	for _, k := range c.Kwargs {
		if k.Name == name {
			return k.V, true
		}
	}
	return nil, false
}

// CheckArgs validates the argument count and keyword names of a builtin.
// params lists parameter names in positional order; a trailing "*" entry
// allows extra keywords.
func (ev *Evaluator) CheckArgs(c *Call, fname string, minPos int, params ...string) bool {
	open := len(params) > 0 && params[len(params)-1] == "*"
	if open {
		params = params[:len(params)-1]
	}
	if len(c.Args) > len(params) {
		ev.Errorf(c.At, CodeType, "%s() takes at most %d positional arguments (%d given)", fname, len(params), len(c.Args))
		return false
	}
	for _, k := range c.Kwargs {
		if k.Name == "**" {
			continue
		}
		idx := -1
		for i, p := range params {
			if p == k.Name {
				idx = i
			}
		}
		if idx < 0 {
			if open {
				continue
			}
			ev.Errorf(k.At, CodeType, "%s() got an unexpected keyword argument '%s'", fname, k.Name)
			return false
		}
		if idx < len(c.Args) {
			ev.Errorf(k.At, CodeType, "%s() got multiple values for argument '%s'", fname, k.Name)
			return false
		}
	}
	for i := 0; i < minPos; i++ {
		if c.Arg(i, params[i]) == nil {
			ev.Errorf(c.At, CodeType, "%s() missing required argument '%s'", fname, params[i])
			return false
		}
	}
	// Move keyword-given leading parameters into c.args, so that c.args[i]
	// is valid for every i < minPos (and beyond, up to the first gap).
	for i := len(c.Args); i < len(params); i++ {
		found := false
		for j, k := range c.Kwargs {
			if k.Name == params[i] {
				c.Args = append(c.Args, k.V)
				c.ArgSpans = append(c.ArgSpans, k.Vspan)
				c.Kwargs = append(c.Kwargs[:j:j], c.Kwargs[j+1:]...)
				found = true
				break
			}
		}
		if !found {
			break
		}
	}
	return true
}

// FirstErr returns the first poison/unbound/opaque value among vs,
// looking inside tuples, lists and slices.
func FirstErr(vs ...Value) Value {
	for _, v := range vs {
		if v == nil {
			continue
		}
		if x := errIn(v); x != nil {
			return x
		}
	}
	return nil
}

// IntArg converts v (at span) to an int, reporting a type error.
func (ev *Evaluator) IntArg(v Value, span source.Span, what string) (int64, bool) {
	if v == nil {
		ev.Errorf(span, CodeType, "missing %s", what)
		return 0, false
	}
	if n, ok := ToInt(v); ok {
		return n, true
	}
	if IsErr(v) {
		ev.NeedConcrete(v, span, what)
		return 0, false
	}
	if x, ok := v.(*ExprV); ok && !ExprType(x.E).IsFloat() {
		ev.Warnf(span, CodeUnresolved, "%s is the dynamic value `%s`; tilels needs a static integer", what, Clip(ExprString(x.E), 40))
		return 0, false
	}
	ev.Errorf(span, CodeType, "%s must be an integer, got %s", what, Describe(v))
	return 0, false
}

// IntsArg converts an int or a sequence of ints.
func (ev *Evaluator) IntsArg(v Value, span source.Span, what string) ([]int64, bool) {
	if v == nil {
		ev.Errorf(span, CodeType, "missing %s", what)
		return nil, false
	}
	if IsErr(v) {
		ev.NeedConcrete(v, span, what)
		return nil, false
	}
	if n, ok := ToInt(v); ok {
		return []int64{n}, true
	}
	elts := SeqElts(v)
	if _, ok := v.(*StrV); ok || (elts == nil && !IsSeq(v)) {
		ev.Errorf(span, CodeType, "%s must be an integer or a tuple of integers, got %s", what, Describe(v))
		return nil, false
	}
	out := make([]int64, len(elts))
	for i, e := range elts {
		n, ok := ToInt(e)
		if !ok {
			if IsErr(e) {
				ev.NeedConcrete(e, span, what)
				return nil, false
			}
			ev.Errorf(span, CodeType, "%s must be a tuple of integers, got %s", what, Describe(v))
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func IsSeq(v Value) bool {
	switch v.(type) {
	case *TupleV, *ListV:
		return true
	}
	return false
}

// Describe is a short description of v for messages: its repr for small
// Python values, else its type.
func Describe(v Value) string {
	if v == nil {
		return "nothing"
	}
	switch v.(type) {
	case *IntV, *FloatV, *BoolV, *NoneV, *StrV, *ExprV, *DTypeV, *EnumV:
		return Clip(Repr(v), 40)
	case *TupleV, *ListV:
		if r := Repr(v); len(r) <= 40 {
			return r
		}
	}
	return v.TypeName()
}

func (ev *Evaluator) StrArg(v Value, span source.Span, what string) (string, bool) {
	if v == nil {
		ev.Errorf(span, CodeType, "missing %s", what)
		return "", false
	}
	if s, ok := v.(*StrV); ok {
		return s.V, true
	}
	if IsErr(v) {
		ev.NeedConcrete(v, span, what)
		return "", false
	}
	ev.Errorf(span, CodeType, "%s must be a string, got %s", what, Describe(v))
	return "", false
}
