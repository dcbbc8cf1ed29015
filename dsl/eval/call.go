package eval

import (
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// call is one evaluated call: callee-independent argument values.
type call struct {
	node     *syntax.Call // nil for synthesized calls
	span     source.Span  // the whole call
	fnSpan   source.Span  // the callee expression
	args     []Value
	argSpans []source.Span
	kwargs   []kwarg
	// spec marks a call made by a binding source (drive.go): every
	// parameter gets spec.given's value, else spec.extra's (a directive
	// line), else Options.Bindings', else its default, else an unbound
	// value. A pointer keeps call small (one is allocated per Python call).
	spec *specArgs
	fr   *frame // the calling frame
}

// specArgs are the values a binding source passes (see call.spec).
type specArgs struct {
	given, extra []Binding
}

type kwarg struct {
	name  string
	v     Value
	span  source.Span // the keyword argument (name=value), or the **expr
	vspan source.Span // the value expression (the **expr for expanded dicts)
}

func (ev *evaluator) evalCall(fr *frame, e *syntax.Call) Value {
	if ev.kern != nil && maybeTileCall(e) {
		return ev.evalTileSite(fr, e)
	}
	return ev.evalCallNoSite(fr, e)
}

// maybeTileCall reports whether e's callee could be a tile primitive: an
// attribute named like one, or a plain name (a Tx op chosen from a dict).
func maybeTileCall(e *syntax.Call) bool {
	switch f := e.Func.(type) {
	case *syntax.Name:
		return true
	case *syntax.Attribute:
		return isTileOp(f.Attr.Id)
	}
	return false
}

// evalTileSite evaluates a call inside a kernel that may be a tile call,
// recording it (with the unbound parameters its evaluation needed) for
// Kernel.Unresolved.
func (ev *evaluator) evalTileSite(fr *frame, e *syntax.Call) Value {
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
		if op, scope, ok := tileCallSyntax(fr, e, ev.inOldDialect()); ok {
			ev.noteSite(e, op, scope, needs)
		}
	}
	if ev.collecting == 0 {
		ev.needs = ev.needs[:0]
	}
	return v
}

func (ev *evaluator) evalCallNoSite(fr *frame, e *syntax.Call) Value {
	return ev.evalCallWith(fr, e, nil)
}

// evalCallWith evaluates e; the callee's value is stored in *fnOut when
// fnOut is not nil.
func (ev *evaluator) evalCallWith(fr *frame, e *syntax.Call, fnOut *Value) Value {
	fn := ev.expr(fr, e.Func)
	if fnOut != nil {
		*fnOut = fn
	}
	c := &call{node: e, span: e.Loc, fnSpan: e.Func.Span(), fr: fr}
	// TMA fills what lies outside a global tensor (oob=), so the regions
	// written as copy_async arguments may extend past a global buffer; the
	// variants that cannot (ldgsts) decline such regions themselves.
	if op, ok := fn.(*TxOpV); ok && op.Op == "copy_async" && !ev.oobRegions {
		ev.oobRegions = true
		defer func() { ev.oobRegions = false }()
	}
	// Sized once: growing them by append was a third of the allocations
	// of evaluating calls (4 per 3-argument call; BenchmarkSessionFile).
	if n := len(e.Args); n > 0 {
		c.args, c.argSpans = make([]Value, 0, n), make([]source.Span, 0, n)
	}
	if n := len(e.Keywords); n > 0 {
		c.kwargs = make([]kwarg, 0, n)
	}
	for _, a := range e.Args {
		if st, ok := a.(*syntax.Starred); ok {
			v := ev.expr(fr, st.X)
			if isErr(v) {
				c.args = append(c.args, v)
				c.argSpans = append(c.argSpans, st.Loc)
				continue
			}
			elts, ok := ev.iterate(v, st.Loc)
			if !ok {
				return ev.errorf(st.Loc, CodeType, "argument after * must be an iterable, not %s", v.TypeName())
			}
			if !ev.charge(st.Loc, "argument list", seqCost(int64(len(elts)), false)) {
				return poison(e.Loc)
			}
			for _, x := range elts {
				c.args = append(c.args, x)
				c.argSpans = append(c.argSpans, st.Loc)
			}
			continue
		}
		c.args = append(c.args, ev.expr(fr, a))
		c.argSpans = append(c.argSpans, a.Span())
	}
	for _, k := range e.Keywords {
		v := ev.expr(fr, k.Value)
		if k.Name != nil {
			c.kwargs = append(c.kwargs, kwarg{k.Name.Id, v, k.Loc, k.Value.Span()})
			continue
		}
		if isErr(v) {
			if _, ok := v.(*PoisonV); !ok {
				c.kwargs = append(c.kwargs, kwarg{"**", v, k.Loc, k.Value.Span()})
			}
			continue
		}
		d, ok := v.(*DictV)
		if !ok {
			ev.errorf(k.Value.Span(), CodeType, "argument after ** must be a mapping, not %s", v.TypeName())
			continue
		}
		if !ev.charge(k.Loc, "argument list", mulCost(int64(len(d.Keys)), costEntry)) {
			return poison(e.Loc)
		}
		for i, key := range d.Keys {
			s, ok := key.(*StrV)
			if !ok {
				ev.errorf(k.Value.Span(), CodeType, "keywords must be strings")
				continue
			}
			c.kwargs = append(c.kwargs, kwarg{s.V, d.Vals[i], k.Loc, k.Value.Span()})
		}
	}
	return ev.callValue(fn, c)
}

// callValue calls fn.
func (ev *evaluator) callValue(fn Value, c *call) Value {
	switch f := fn.(type) {
	case *FuncV:
		return ev.callFunc(f, c)
	case *ClassV:
		return ev.callClass(f, c) // class.go
	case *BuiltinV:
		return f.Fn(ev, c)
	case *TxOpV:
		return ev.tileCall(f, c)
	case *IntrinsicV:
		return ev.intrinsicCall(f, c)
	case *DTypeV:
		return ev.dtypeCall(f, c)
	case *MarkerV:
		return ev.markerCall(f, c)
	case *OpaqueV:
		path := f.Path
		if !strings.HasSuffix(path, ")") {
			path += "(...)"
		}
		return &OpaqueV{base{c.span}, path}
	case *PoisonV, *UnboundV:
		return fn
	case *KernelV:
		return &OpaqueV{base{c.span}, f.K.Func.Name + "(...)"}
	case *JitV:
		return &OpaqueV{base{c.span}, f.Def.Name.Id + "(...)"}
	case *EnumV:
		return ev.errorf(c.fnSpan, CodeType, "'%s' object is not callable", f.Type)
	case *ModuleV:
		if f.call != nil {
			return f.call(ev, c)
		}
	}
	return ev.pyErrorf(c.fnSpan, "'%s' object is not callable", fn.TypeName())
}

// callFunc calls a user function (def or lambda).
func (ev *evaluator) callFunc(fn *FuncV, c *call) Value {
	if ev.depth >= maxCallDepth {
		return ev.errorf(c.span, CodeBudget, "call depth exceeds %d", maxCallDepth)
	}
	ev.depth++
	defer func() { ev.depth-- }()
	env := newScope(fn.Env)
	if !ev.bindParams(fn, c, env) {
		return poison(c.span)
	}
	defer ev.enterCall(fn, c.span)() // imports.go
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
			return &NoneV{base{c.span}}
		}
		return fr.ret
	case ctrlRaise:
		return poison(c.span)
	}
	return &NoneV{base{c.span}}
}

// bindParams binds c's arguments to fn's parameters in env, Python style.
func (ev *evaluator) bindParams(fn *FuncV, c *call, env *scope) bool {
	ps := fn.Params
	positional := append(append([]*syntax.Param(nil), ps.Posonly...), ps.Args...)
	bound := map[string]bool{}
	name := fn.Name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if c.spec != nil {
		binds := ev.opts.Bindings[fn.Name]
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
				env.set(id, &UnboundV{base{p.Name.Loc}, ev.originFor(fn, p)})
			}
		}
		if ps.Vararg != nil {
			env.set(ps.Vararg.Name.Id, &TupleV{base{ps.Vararg.Loc}, nil})
		}
		if ps.Kwarg != nil {
			env.set(ps.Kwarg.Name.Id, newDict(ps.Kwarg.Loc))
		}
		return true
	}
	var extra []Value
	for i, a := range c.args {
		if i < len(positional) {
			env.set(positional[i].Name.Id, a)
			bound[positional[i].Name.Id] = true
		} else {
			extra = append(extra, a)
		}
	}
	if len(extra) > 0 {
		if ps.Vararg == nil {
			ev.pyErrorf(c.span, "%s() takes %d positional arguments but %d were given", name, len(positional), len(c.args))
			return false
		}
	}
	if ps.Vararg != nil {
		env.set(ps.Vararg.Name.Id, &TupleV{base{c.span}, extra})
	}
	var kwd *DictV
	if ps.Kwarg != nil {
		kwd = newDict(c.span)
		env.set(ps.Kwarg.Name.Id, kwd)
	}
	for _, k := range c.kwargs {
		if k.name == "**" { // an opaque or unbound **mapping
			continue
		}
		var target *syntax.Param
		for _, p := range append(append([]*syntax.Param(nil), ps.Args...), ps.Kwonly...) {
			if p.Name.Id == k.name {
				target = p
			}
		}
		if target == nil {
			if kwd == nil {
				ev.pyErrorf(k.span, "%s() got an unexpected keyword argument '%s'", name, k.name)
				return false
			}
			ev.setEntry(kwd, &StrV{base{k.span}, k.name}, k.v, k.span)
			continue
		}
		if bound[k.name] {
			ev.pyErrorf(k.span, "%s() got multiple values for argument '%s'", name, k.name)
			return false
		}
		env.set(k.name, k.v)
		bound[k.name] = true
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
		ev.pyErrorf(c.span, "%s() missing %d required argument%s: %s", name, len(missing), plural(len(missing)), strings.Join(missing, ", "))
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
func (ev *evaluator) fillUnbound(fn *FuncV, env *scope) {
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

// arg returns positional argument i or keyword name (nil when absent).
func (c *call) arg(i int, name string) Value {
	if i >= 0 && i < len(c.args) {
		return c.args[i]
	}
	for _, k := range c.kwargs {
		if k.name == name {
			return k.v
		}
	}
	return nil
}

// argSpan is the span of positional argument i or of keyword name's value.
func (c *call) argSpan(i int, name string) source.Span {
	if i >= 0 && i < len(c.args) {
		return c.argSpans[i]
	}
	for _, k := range c.kwargs {
		if k.name == name {
			return k.vspan
		}
	}
	return c.span
}

// kw returns keyword argument name.
func (c *call) kw(name string) (Value, bool) {
	for _, k := range c.kwargs {
		if k.name == name {
			return k.v, true
		}
	}
	return nil, false
}

// checkArgs validates the argument count and keyword names of a builtin.
// params lists parameter names in positional order; a trailing "*" entry
// allows extra keywords.
func (ev *evaluator) checkArgs(c *call, fname string, minPos int, params ...string) bool {
	open := len(params) > 0 && params[len(params)-1] == "*"
	if open {
		params = params[:len(params)-1]
	}
	if len(c.args) > len(params) {
		ev.errorf(c.span, CodeType, "%s() takes at most %d positional arguments (%d given)", fname, len(params), len(c.args))
		return false
	}
	for _, k := range c.kwargs {
		if k.name == "**" {
			continue
		}
		idx := -1
		for i, p := range params {
			if p == k.name {
				idx = i
			}
		}
		if idx < 0 {
			if open {
				continue
			}
			ev.errorf(k.span, CodeType, "%s() got an unexpected keyword argument '%s'", fname, k.name)
			return false
		}
		if idx < len(c.args) {
			ev.errorf(k.span, CodeType, "%s() got multiple values for argument '%s'", fname, k.name)
			return false
		}
	}
	for i := 0; i < minPos; i++ {
		if c.arg(i, params[i]) == nil {
			ev.errorf(c.span, CodeType, "%s() missing required argument '%s'", fname, params[i])
			return false
		}
	}
	// Move keyword-given leading parameters into c.args, so that c.args[i]
	// is valid for every i < minPos (and beyond, up to the first gap).
	for i := len(c.args); i < len(params); i++ {
		found := false
		for j, k := range c.kwargs {
			if k.name == params[i] {
				c.args = append(c.args, k.v)
				c.argSpans = append(c.argSpans, k.vspan)
				c.kwargs = append(c.kwargs[:j:j], c.kwargs[j+1:]...)
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

// firstErr returns the first poison/unbound/opaque value among vs,
// looking inside tuples, lists and slices.
func firstErr(vs ...Value) Value {
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

// intArg converts v (at span) to an int, reporting a type error.
func (ev *evaluator) intArg(v Value, span source.Span, what string) (int64, bool) {
	if v == nil {
		ev.errorf(span, CodeType, "missing %s", what)
		return 0, false
	}
	if n, ok := toInt(v); ok {
		return n, true
	}
	if isErr(v) {
		ev.needConcrete(v, span, what)
		return 0, false
	}
	if x, ok := v.(*ExprV); ok && !exprType(x.E).IsFloat() {
		ev.warnf(span, CodeUnresolved, "%s is the dynamic value `%s`; tilels needs a static integer", what, clip(ExprString(x.E), 40))
		return 0, false
	}
	ev.errorf(span, CodeType, "%s must be an integer, got %s", what, describe(v))
	return 0, false
}

// intsArg converts an int or a sequence of ints.
func (ev *evaluator) intsArg(v Value, span source.Span, what string) ([]int64, bool) {
	if v == nil {
		ev.errorf(span, CodeType, "missing %s", what)
		return nil, false
	}
	if isErr(v) {
		ev.needConcrete(v, span, what)
		return nil, false
	}
	if n, ok := toInt(v); ok {
		return []int64{n}, true
	}
	elts := seqElts(v)
	if _, ok := v.(*StrV); ok || (elts == nil && !isSeq(v)) {
		ev.errorf(span, CodeType, "%s must be an integer or a tuple of integers, got %s", what, describe(v))
		return nil, false
	}
	out := make([]int64, len(elts))
	for i, e := range elts {
		n, ok := toInt(e)
		if !ok {
			if isErr(e) {
				ev.needConcrete(e, span, what)
				return nil, false
			}
			ev.errorf(span, CodeType, "%s must be a tuple of integers, got %s", what, describe(v))
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func isSeq(v Value) bool {
	switch v.(type) {
	case *TupleV, *ListV:
		return true
	}
	return false
}

// describe is a short description of v for messages: its repr for small
// Python values, else its type.
func describe(v Value) string {
	if v == nil {
		return "nothing"
	}
	switch v.(type) {
	case *IntV, *FloatV, *BoolV, *NoneV, *StrV, *ExprV, *DTypeV, *EnumV:
		return clip(Repr(v), 40)
	case *TupleV, *ListV:
		if r := Repr(v); len(r) <= 40 {
			return r
		}
	}
	return v.TypeName()
}

func (ev *evaluator) strArg(v Value, span source.Span, what string) (string, bool) {
	if v == nil {
		ev.errorf(span, CodeType, "missing %s", what)
		return "", false
	}
	if s, ok := v.(*StrV); ok {
		return s.V, true
	}
	if isErr(v) {
		ev.needConcrete(v, span, what)
		return "", false
	}
	ev.errorf(span, CodeType, "%s must be a string, got %s", what, describe(v))
	return "", false
}
