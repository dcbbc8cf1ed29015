package eval

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// The dataclasses module (CPython Lib/dataclasses.py): @dataclass with
// its init, repr, eq, frozen, unsafe_hash, kw_only options, field(...),
// fields, asdict, astuple, replace and is_dataclass. Fields are the
// class body's annotated names in order (ClassVar annotations are not
// fields), after those of dataclass bases; a field's default is its
// value, or field(default=...), or field(default_factory=...), called
// for each instance.

// dcInfo describes a dataclass.
type dcInfo struct {
	fields                                     []*dcField
	init, repr, eq, frozen, unsafeHash, kwOnly bool
}

// dcField is one dataclass field.
type dcField struct {
	name                        string
	def, factory                Value // nil when absent
	init, repr, compare, kwOnly bool
	// initVar marks an InitVar pseudo-field: an __init__ parameter passed
	// on to __post_init__, not stored and not in fields().
	initVar bool
	span    source.Span
	typ     string // the annotation's text
}

// classDecorator reports whether a class decorator of this builtin name is
// modelled.
func classDecorator(name string) bool {
	return name == "dataclasses.dataclass" || name == "dataclasses.dataclass(...)" || name == "enum.unique"
}

// fieldClass is dataclasses.Field; field(...) and fields(...) return
// instances of it.
var fieldClass = &ClassV{Name: "Field", attrs: map[string]Value{}}

var missingV = &OpaqueV{base{source.NoSpan}, "dataclasses.MISSING"}

func dataclassesAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "dataclass":
		return builtin("dataclasses.dataclass", func(ev *evaluator, c *call) Value {
			return ev.dataclassDecorator(c)
		}), true
	case "field":
		return builtin("dataclasses.field", biField), true
	case "fields":
		return builtin("dataclasses.fields", biFields), true
	case "asdict", "astuple":
		tuple := name == "astuple"
		return builtin("dataclasses."+name, func(ev *evaluator, c *call) Value {
			inst, bad := dataclassArg(ev, c, name)
			if bad != nil {
				return bad
			}
			return ev.asData(inst, c.span, tuple, 0)
		}), true
	case "replace":
		return builtin("dataclasses.replace", biReplace), true
	case "is_dataclass":
		return builtin("dataclasses.is_dataclass", func(ev *evaluator, c *call) Value {
			if len(c.args) != 1 {
				return ev.pyErrorf(c.span, "is_dataclass() takes 1 argument")
			}
			switch x := c.args[0].(type) {
			case *InstanceV:
				return &BoolV{base{c.span}, x.Class.dcOf() != nil}
			case *ClassV:
				return &BoolV{base{c.span}, x.dcOf() != nil}
			}
			if isErr(c.args[0]) {
				return c.args[0]
			}
			return &BoolV{base{c.span}, false}
		}), true
	case "MISSING":
		return missingV, true
	case "Field":
		return fieldClass, true
	}
	return nil, false
}

// dataclassDecorator is dataclass(cls) or dataclass(**options).
func (ev *evaluator) dataclassDecorator(c *call) Value {
	o := dcInfo{init: true, repr: true, eq: true}
	for _, k := range c.kwargs {
		b, ok := k.v.(*BoolV)
		if !ok {
			return ev.errorf(k.vspan, CodeType, "dataclass(%s=...) needs a bool, got %s", k.name, describe(k.v))
		}
		switch k.name {
		case "init":
			o.init = b.V
		case "repr":
			o.repr = b.V
		case "eq":
			o.eq = b.V
		case "frozen":
			o.frozen = b.V
		case "unsafe_hash":
			o.unsafeHash = b.V
		case "kw_only":
			o.kwOnly = b.V
		case "order", "slots", "match_args", "weakref_slot":
		default:
			return ev.pyErrorf(k.span, "dataclass() got an unexpected keyword argument '%s'", k.name)
		}
	}
	apply := func(ev *evaluator, c *call) Value {
		if len(c.args) != 1 {
			return ev.pyErrorf(c.span, "dataclass() takes 1 positional argument")
		}
		cls, ok := c.args[0].(*ClassV)
		if !ok || cls.def == nil || cls.enum != enumNone {
			if isErr(c.args[0]) {
				return c.args[0]
			}
			return &OpaqueV{base{c.span}, "dataclass(...)"}
		}
		return ev.makeDataclass(cls, o)
	}
	if len(c.args) > 0 {
		if len(c.kwargs) > 0 {
			return ev.pyErrorf(c.span, "dataclass() takes a class or keyword arguments")
		}
		return apply(ev, c)
	}
	return builtin("dataclasses.dataclass(...)", apply)
}

// makeDataclass makes cls a dataclass with options o.
func (ev *evaluator) makeDataclass(cls *ClassV, o dcInfo) Value {
	dc := &o
	// Fields of dataclass bases come first, the most basic first.
	mro := cls.mro()
	byName := map[string]int{}
	add := func(f *dcField) {
		if i, ok := byName[f.name]; ok {
			dc.fields[i] = f
			return
		}
		byName[f.name] = len(dc.fields)
		dc.fields = append(dc.fields, f)
	}
	for i := len(mro) - 1; i >= 1; i-- {
		if mro[i].DC != nil {
			for _, f := range mro[i].DC.fields {
				add(f)
			}
		}
	}
	kwOnly := o.kwOnly
	for _, s := range cls.def.Body {
		a, ok := s.(*syntax.AnnAssign)
		if !ok {
			continue
		}
		n, ok := a.Target.(*syntax.Name)
		if !ok {
			continue
		}
		typ := ev.exprText(a.Annotation) // imports.go: an imported class's text
		if strings.Contains(typ, "ClassVar") {
			continue
		}
		if typ == "KW_ONLY" || strings.HasSuffix(typ, ".KW_ONLY") {
			kwOnly = true
			continue
		}
		f := &dcField{name: n.Id, init: true, repr: true, compare: true, kwOnly: kwOnly, span: n.Loc, typ: typ,
			initVar: strings.HasPrefix(typ, "InitVar") || strings.Contains(typ, ".InitVar")}
		if f.initVar {
			f.repr, f.compare = false, false
		}
		if a.Value != nil {
			v := cls.attrs[n.Id]
			if spec, ok := v.(*InstanceV); ok && spec.Class == fieldClass {
				f.def, f.factory = spec.attrs["default"], spec.attrs["default_factory"]
				if f.def == missingV {
					f.def = nil
				}
				if f.factory == missingV {
					f.factory = nil
				}
				f.init = truthy(spec.attrs["init"])
				f.repr = truthy(spec.attrs["repr"])
				f.compare = truthy(spec.attrs["compare"])
				if k, ok := spec.attrs["kw_only"].(*BoolV); ok {
					f.kwOnly = k.V
				}
				// The class attribute is the default, or absent.
				if f.def != nil {
					cls.attrs[n.Id] = f.def
				} else {
					delete(cls.attrs, n.Id)
				}
			} else if v != nil {
				if _, ok := v.(*ListV); ok {
					return ev.pyErrorf(a.Value.Span(), "mutable default <class 'list'> for field %s is not allowed: use default_factory", n.Id)
				}
				if _, ok := v.(*DictV); ok {
					return ev.pyErrorf(a.Value.Span(), "mutable default <class 'dict'> for field %s is not allowed: use default_factory", n.Id)
				}
				f.def = v
			}
		}
		add(f)
	}
	// A field without a default may not follow one with a default
	// (keyword-only fields aside).
	seenDefault := false
	for _, f := range dc.fields {
		if !f.init || f.kwOnly {
			continue
		}
		if f.def != nil || f.factory != nil {
			seenDefault = true
		} else if seenDefault {
			return ev.pyErrorf(f.span, "non-default argument '%s' follows default argument", f.name)
		}
	}
	if _, own := cls.attrs["__init__"]; own {
		dc.init = false
	}
	cls.DC = dc
	return cls
}

// dataclassInit is the generated __init__ of dataclass k (cls's instance
// inst), then __post_init__.
func (ev *evaluator) dataclassInit(k *ClassV, inst *InstanceV, c *call) Value {
	dc := k.DC
	var positional []*dcField
	for _, f := range dc.fields {
		if f.init && !f.kwOnly {
			positional = append(positional, f)
		}
	}
	name := inst.Class.Name
	if len(c.args) > len(positional) {
		required := 0
		for _, f := range positional {
			if f.def == nil && f.factory == nil {
				required++
			}
		}
		takes := fmt.Sprintf("from %d to %d", required+1, len(positional)+1)
		if required == len(positional) {
			takes = fmt.Sprint(required + 1)
		}
		return ev.pyErrorf(c.span, "%s.__init__() takes %s positional arguments but %d were given", name, takes, len(c.args)+1)
	}
	given := map[string]Value{}
	for i, a := range c.args {
		given[positional[i].name] = a
	}
	for _, kw := range c.kwargs {
		if kw.name == "**" { // an opaque **mapping: every field is unknown
			return &OpaqueV{base{c.span}, name + "(...)"}
		}
		var f *dcField
		for _, x := range dc.fields {
			if x.name == kw.name && x.init {
				f = x
			}
		}
		if f == nil {
			return ev.pyErrorf(kw.span, "%s.__init__() got an unexpected keyword argument '%s'", name, kw.name)
		}
		if _, dup := given[kw.name]; dup {
			return ev.pyErrorf(kw.span, "%s.__init__() got multiple values for argument '%s'", name, kw.name)
		}
		given[kw.name] = kw.v
	}
	var missing []string
	var initVars []Value
	for _, f := range dc.fields {
		v, ok := given[f.name]
		if !ok || !f.init {
			switch {
			case f.factory != nil:
				v = ev.callValue(f.factory, &call{span: c.span, fnSpan: f.span})
			case f.def != nil:
				v = f.def
			case f.init:
				missing = append(missing, "'"+f.name+"'")
				continue
			default:
				continue // init=False without a default: set by __post_init__
			}
		}
		if f.initVar {
			initVars = append(initVars, v)
			continue
		}
		if !ev.storeAttr(inst, f.name, v, c.span) {
			return poison(c.span)
		}
	}
	if len(missing) > 0 {
		return ev.pyErrorf(c.span, "%s.__init__() missing %d required positional argument%s: %s", name, len(missing), plural(len(missing)), strings.Join(missing, " and "))
	}
	if post, _ := inst.Class.lookup("__post_init__"); post != nil {
		r := ev.callWithSelf(post, inst, c.span, initVars...)
		if _, bad := r.(*PoisonV); bad {
			return r
		}
	}
	return inst
}

// biField is dataclasses.field(...).
func biField(ev *evaluator, c *call) Value {
	if len(c.args) > 0 {
		return ev.pyErrorf(c.span, "field() takes 0 positional arguments but %d were given", len(c.args))
	}
	spec := &InstanceV{base: base{c.span}, Class: fieldClass, attrs: map[string]Value{
		"name": &NoneV{base{c.span}}, "default": missingV, "default_factory": missingV,
		"init": &BoolV{base{c.span}, true}, "repr": &BoolV{base{c.span}, true},
		"compare": &BoolV{base{c.span}, true}, "kw_only": missingV,
	}, order: []string{"name", "default", "default_factory", "init", "repr", "compare", "kw_only"}}
	for _, k := range c.kwargs {
		switch k.name {
		case "default", "default_factory", "init", "repr", "compare", "kw_only":
			spec.attrs[k.name] = k.v
		case "hash", "metadata":
		default:
			return ev.pyErrorf(k.span, "field() got an unexpected keyword argument '%s'", k.name)
		}
	}
	if spec.attrs["default"] != missingV && spec.attrs["default_factory"] != missingV {
		return ev.pyErrorf(c.span, "cannot specify both default and default_factory")
	}
	return spec
}

// biFields is dataclasses.fields(cls or instance): Field objects with
// name, type, default, default_factory, init, repr, compare.
func biFields(ev *evaluator, c *call) Value {
	if len(c.args) != 1 {
		return ev.pyErrorf(c.span, "fields() takes 1 argument")
	}
	var cls *ClassV
	switch x := c.args[0].(type) {
	case *InstanceV:
		cls = x.Class
	case *ClassV:
		cls = x
	default:
		if isErr(x) {
			return x
		}
	}
	if cls == nil || cls.dcOf() == nil {
		return ev.pyErrorf(c.argSpans[0], "must be called with a dataclass type or instance")
	}
	var out []Value
	for _, f := range cls.dcOf().fields {
		if f.initVar {
			continue
		}
		sp := c.span
		def, fac := Value(missingV), Value(missingV)
		if f.def != nil {
			def = f.def
		}
		if f.factory != nil {
			fac = f.factory
		}
		out = append(out, &InstanceV{base: base{sp}, Class: fieldClass, attrs: map[string]Value{
			"name": &StrV{base{sp}, f.name}, "type": &StrV{base{sp}, f.typ}, "default": def, "default_factory": fac,
			"init": &BoolV{base{sp}, f.init}, "repr": &BoolV{base{sp}, f.repr}, "compare": &BoolV{base{sp}, f.compare},
			"kw_only": &BoolV{base{sp}, f.kwOnly},
		}, order: []string{"name", "type", "default", "default_factory", "init", "repr", "compare", "kw_only"}})
	}
	return ev.mkTuple(c.span, out, true)
}

// dataclassArg is the single dataclass instance argument of fn.
func dataclassArg(ev *evaluator, c *call, fn string) (*InstanceV, Value) {
	if len(c.args) < 1 {
		return nil, ev.pyErrorf(c.span, "%s() missing 1 required positional argument: 'obj'", fn)
	}
	x := c.args[0]
	if isErr(x) {
		return nil, x
	}
	inst, ok := x.(*InstanceV)
	if !ok || inst.Class.dcOf() == nil {
		return nil, ev.pyErrorf(c.argSpans[0], "%s() should be called on dataclass instances", fn)
	}
	return inst, nil
}

// asData is asdict/astuple: fields in order, recursing into dataclass
// instances, lists, tuples and dicts (copied, as Python's deepcopy of
// the rest is not modelled: other values are shared).
func (ev *evaluator) asData(v Value, span source.Span, tuple bool, depth int) Value {
	if depth > 64 {
		return ev.errorf(span, CodeBudget, "asdict() nests deeper than 64")
	}
	if !ev.step(span) {
		return poison(span)
	}
	switch x := v.(type) {
	case *InstanceV:
		dc := x.Class.dcOf()
		if dc == nil {
			return v
		}
		if tuple {
			var out []Value
			for _, f := range dc.fields {
				if val, ok := x.attrs[f.name]; ok {
					out = append(out, ev.asData(val, span, tuple, depth+1))
				}
			}
			return ev.mkTuple(span, out, false)
		}
		d := newDict(span)
		for _, f := range dc.fields {
			val, ok := x.attrs[f.name]
			if !ok {
				continue
			}
			if !ev.setEntry(d, &StrV{base{span}, f.name}, ev.asData(val, span, tuple, depth+1), span) {
				return poison(span)
			}
		}
		return d
	case *ListV:
		out := make([]Value, len(x.Elts))
		for i, e := range x.Elts {
			out[i] = ev.asData(e, span, tuple, depth+1)
		}
		return ev.mkList(span, out, false)
	case *TupleV:
		out := make([]Value, len(x.Elts))
		for i, e := range x.Elts {
			out[i] = ev.asData(e, span, tuple, depth+1)
		}
		return ev.mkTuple(span, out, false)
	case *DictV:
		d := newDict(span)
		for i, k := range x.Keys {
			if !ev.setEntry(d, k, ev.asData(x.Vals[i], span, tuple, depth+1), span) {
				return poison(span)
			}
		}
		return d
	}
	return v
}

// biReplace is dataclasses.replace(obj, **changes): a new instance made
// by the class's __init__ from obj's init fields and the changes.
func biReplace(ev *evaluator, c *call) Value {
	inst, bad := dataclassArg(ev, c, "replace")
	if bad != nil {
		return bad
	}
	if len(c.args) > 1 {
		return ev.pyErrorf(c.span, "replace() takes 1 positional argument but %d were given", len(c.args))
	}
	dc := inst.Class.dcOf()
	n := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr}
	changed := map[string]bool{}
	for _, k := range c.kwargs {
		if k.name == "**" {
			return &OpaqueV{base{c.span}, "replace(...)"}
		}
		for _, f := range dc.fields {
			if f.name == k.name && !f.init {
				return ev.pyErrorf(k.span, "field %s is declared with init=False, it cannot be specified with replace()", k.name)
			}
		}
		changed[k.name] = true
		n.kwargs = append(n.kwargs, k)
	}
	for _, f := range dc.fields {
		if !f.init || changed[f.name] {
			continue
		}
		v, ok := inst.attrs[f.name]
		if f.initVar {
			return ev.pyErrorf(c.span, "InitVar '%s' must be specified with replace()", f.name)
		}
		if !ok {
			return ev.pyErrorf(c.span, "replace(): field '%s' of %s is not set", f.name, inst.Class.Name)
		}
		n.kwargs = append(n.kwargs, kwarg{f.name, v, c.span, c.span})
	}
	return ev.callClass(inst.Class, n)
}
