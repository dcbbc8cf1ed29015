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
var fieldClass = &ClassV{Name: "Field", Attrs: map[string]Value{}}

var missingV = &OpaqueV{Base{source.NoSpan}, "dataclasses.MISSING"}

func dataclassesAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "dataclass":
		return Builtin("dataclasses.dataclass", func(ev *Evaluator, c *Call) Value {
			return ev.dataclassDecorator(c)
		}), true
	case "field":
		return Builtin("dataclasses.field", biField), true
	case "fields":
		return Builtin("dataclasses.fields", biFields), true
	case "asdict", "astuple":
		tuple := name == "astuple"
		return Builtin("dataclasses."+name, func(ev *Evaluator, c *Call) Value {
			inst, bad := dataclassArg(ev, c, name)
			if bad != nil {
				return bad
			}
			return ev.asData(inst, c.At, tuple, 0)
		}), true
	case "replace":
		return Builtin("dataclasses.replace", biReplace), true
	case "is_dataclass":
		return Builtin("dataclasses.is_dataclass", func(ev *Evaluator, c *Call) Value {
			if len(c.Args) != 1 {
				return ev.PyErrorf(c.At, "is_dataclass() takes 1 argument")
			}
			switch x := c.Args[0].(type) {
			case *InstanceV:
				return &BoolV{Base{c.At}, x.Class.dcOf() != nil}
			case *ClassV:
				return &BoolV{Base{c.At}, x.dcOf() != nil}
			}
			if IsErr(c.Args[0]) {
				return c.Args[0]
			}
			return &BoolV{Base{c.At}, false}
		}), true
	case "MISSING":
		return missingV, true
	case "Field":
		return fieldClass, true
	}
	return nil, false
}

// dataclassDecorator is dataclass(cls) or dataclass(**options).
func (ev *Evaluator) dataclassDecorator(c *Call) Value {
	o := dcInfo{init: true, repr: true, eq: true}
	for _, k := range c.Kwargs {
		b, ok := k.V.(*BoolV)
		if !ok {
			return ev.Errorf(k.Vspan, CodeType, "dataclass(%s=...) needs a bool, got %s", k.Name, Describe(k.V))
		}
		switch k.Name {
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
			return ev.PyErrorf(k.At, "dataclass() got an unexpected keyword argument '%s'", k.Name)
		}
	}
	apply := func(ev *Evaluator, c *Call) Value {
		if len(c.Args) != 1 {
			return ev.PyErrorf(c.At, "dataclass() takes 1 positional argument")
		}
		cls, ok := c.Args[0].(*ClassV)
		if !ok || cls.def == nil || cls.enum != enumNone {
			if IsErr(c.Args[0]) {
				return c.Args[0]
			}
			return &OpaqueV{Base{c.At}, "dataclass(...)"}
		}
		return ev.makeDataclass(cls, o)
	}
	if len(c.Args) > 0 {
		if len(c.Kwargs) > 0 {
			return ev.PyErrorf(c.At, "dataclass() takes a class or keyword arguments")
		}
		return apply(ev, c)
	}
	return Builtin("dataclasses.dataclass(...)", apply)
}

// makeDataclass makes cls a dataclass with options o.
func (ev *Evaluator) makeDataclass(cls *ClassV, o dcInfo) Value {
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
			v := cls.Attrs[n.Id]
			if spec, ok := v.(*InstanceV); ok && spec.Class == fieldClass {
				f.def, f.factory = spec.Attrs["default"], spec.Attrs["default_factory"]
				if f.def == missingV {
					f.def = nil
				}
				if f.factory == missingV {
					f.factory = nil
				}
				f.init = Truthy(spec.Attrs["init"])
				f.repr = Truthy(spec.Attrs["repr"])
				f.compare = Truthy(spec.Attrs["compare"])
				if k, ok := spec.Attrs["kw_only"].(*BoolV); ok {
					f.kwOnly = k.V
				}
				// The class attribute is the default, or absent.
				if f.def != nil {
					cls.Attrs[n.Id] = f.def
				} else {
					delete(cls.Attrs, n.Id)
				}
			} else if v != nil {
				if _, ok := v.(*ListV); ok {
					return ev.PyErrorf(a.Value.Span(), "mutable default <class 'list'> for field %s is not allowed: use default_factory", n.Id)
				}
				if _, ok := v.(*DictV); ok {
					return ev.PyErrorf(a.Value.Span(), "mutable default <class 'dict'> for field %s is not allowed: use default_factory", n.Id)
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
			return ev.PyErrorf(f.span, "non-default argument '%s' follows default argument", f.name)
		}
	}
	if _, own := cls.Attrs["__init__"]; own {
		dc.init = false
	}
	cls.DC = dc
	return cls
}

// dataclassInit is the generated __init__ of dataclass k (cls's instance
// inst), then __post_init__.
func (ev *Evaluator) dataclassInit(k *ClassV, inst *InstanceV, c *Call) Value {
	dc := k.DC
	var positional []*dcField
	for _, f := range dc.fields {
		if f.init && !f.kwOnly {
			positional = append(positional, f)
		}
	}
	name := inst.Class.Name
	if len(c.Args) > len(positional) {
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
		return ev.PyErrorf(c.At, "%s.__init__() takes %s positional arguments but %d were given", name, takes, len(c.Args)+1)
	}
	given := map[string]Value{}
	for i, a := range c.Args {
		given[positional[i].name] = a
	}
	for _, kw := range c.Kwargs {
		if kw.Name == "**" { // an opaque **mapping: every field is unknown
			return &OpaqueV{Base{c.At}, name + "(...)"}
		}
		var f *dcField
		for _, x := range dc.fields {
			if x.name == kw.Name && x.init {
				f = x
			}
		}
		if f == nil {
			return ev.PyErrorf(kw.At, "%s.__init__() got an unexpected keyword argument '%s'", name, kw.Name)
		}
		if _, dup := given[kw.Name]; dup {
			return ev.PyErrorf(kw.At, "%s.__init__() got multiple values for argument '%s'", name, kw.Name)
		}
		given[kw.Name] = kw.V
	}
	var missing []string
	var initVars []Value
	for _, f := range dc.fields {
		v, ok := given[f.name]
		if !ok || !f.init {
			switch {
			case f.factory != nil:
				v = ev.CallValue(f.factory, &Call{At: c.At, FnSpan: f.span})
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
		if !ev.StoreAttr(inst, f.name, v, c.At) {
			return Poison(c.At)
		}
	}
	if len(missing) > 0 {
		return ev.PyErrorf(c.At, "%s.__init__() missing %d required positional argument%s: %s", name, len(missing), plural(len(missing)), strings.Join(missing, " and "))
	}
	if post, _ := inst.Class.lookup("__post_init__"); post != nil {
		r := ev.callWithSelf(post, inst, c.At, initVars...)
		if _, bad := r.(*PoisonV); bad {
			return r
		}
	}
	return inst
}

// biField is dataclasses.field(...).
func biField(ev *Evaluator, c *Call) Value {
	if len(c.Args) > 0 {
		return ev.PyErrorf(c.At, "field() takes 0 positional arguments but %d were given", len(c.Args))
	}
	spec := &InstanceV{Base: Base{c.At}, Class: fieldClass, Attrs: map[string]Value{
		"name": &NoneV{Base{c.At}}, "default": missingV, "default_factory": missingV,
		"init": &BoolV{Base{c.At}, true}, "repr": &BoolV{Base{c.At}, true},
		"compare": &BoolV{Base{c.At}, true}, "kw_only": missingV,
	}, order: []string{"name", "default", "default_factory", "init", "repr", "compare", "kw_only"}}
	for _, k := range c.Kwargs {
		switch k.Name {
		case "default", "default_factory", "init", "repr", "compare", "kw_only":
			spec.Attrs[k.Name] = k.V
		case "hash", "metadata":
		default:
			return ev.PyErrorf(k.At, "field() got an unexpected keyword argument '%s'", k.Name)
		}
	}
	if spec.Attrs["default"] != missingV && spec.Attrs["default_factory"] != missingV {
		return ev.PyErrorf(c.At, "cannot specify both default and default_factory")
	}
	return spec
}

// biFields is dataclasses.fields(cls or instance): Field objects with
// name, type, default, default_factory, init, repr, compare.
func biFields(ev *Evaluator, c *Call) Value {
	if len(c.Args) != 1 {
		return ev.PyErrorf(c.At, "fields() takes 1 argument")
	}
	var cls *ClassV
	switch x := c.Args[0].(type) {
	case *InstanceV:
		cls = x.Class
	case *ClassV:
		cls = x
	default:
		if IsErr(x) {
			return x
		}
	}
	if cls == nil || cls.dcOf() == nil {
		return ev.PyErrorf(c.ArgSpans[0], "must be called with a dataclass type or instance")
	}
	var out []Value
	for _, f := range cls.dcOf().fields {
		if f.initVar {
			continue
		}
		sp := c.At
		def, fac := Value(missingV), Value(missingV)
		if f.def != nil {
			def = f.def
		}
		if f.factory != nil {
			fac = f.factory
		}
		out = append(out, &InstanceV{Base: Base{sp}, Class: fieldClass, Attrs: map[string]Value{
			"name": &StrV{Base{sp}, f.name}, "type": &StrV{Base{sp}, f.typ}, "default": def, "default_factory": fac,
			"init": &BoolV{Base{sp}, f.init}, "repr": &BoolV{Base{sp}, f.repr}, "compare": &BoolV{Base{sp}, f.compare},
			"kw_only": &BoolV{Base{sp}, f.kwOnly},
		}, order: []string{"name", "type", "default", "default_factory", "init", "repr", "compare", "kw_only"}})
	}
	return ev.mkTuple(c.At, out, true)
}

// dataclassArg is the single dataclass instance argument of fn.
func dataclassArg(ev *Evaluator, c *Call, fn string) (*InstanceV, Value) {
	if len(c.Args) < 1 {
		return nil, ev.PyErrorf(c.At, "%s() missing 1 required positional argument: 'obj'", fn)
	}
	x := c.Args[0]
	if IsErr(x) {
		return nil, x
	}
	inst, ok := x.(*InstanceV)
	if !ok || inst.Class.dcOf() == nil {
		return nil, ev.PyErrorf(c.ArgSpans[0], "%s() should be called on dataclass instances", fn)
	}
	return inst, nil
}

// asData is asdict/astuple: fields in order, recursing into dataclass
// instances, lists, tuples and dicts (copied, as Python's deepcopy of
// the rest is not modelled: other values are shared).
func (ev *Evaluator) asData(v Value, span source.Span, tuple bool, depth int) Value {
	if depth > 64 {
		return ev.Errorf(span, CodeBudget, "asdict() nests deeper than 64")
	}
	if !ev.step(span) {
		return Poison(span)
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
				if val, ok := x.Attrs[f.name]; ok {
					out = append(out, ev.asData(val, span, tuple, depth+1))
				}
			}
			return ev.mkTuple(span, out, false)
		}
		d := NewDict(span)
		for _, f := range dc.fields {
			val, ok := x.Attrs[f.name]
			if !ok {
				continue
			}
			if !ev.setEntry(d, &StrV{Base{span}, f.name}, ev.asData(val, span, tuple, depth+1), span) {
				return Poison(span)
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
		d := NewDict(span)
		for i, k := range x.Keys {
			if !ev.setEntry(d, k, ev.asData(x.Vals[i], span, tuple, depth+1), span) {
				return Poison(span)
			}
		}
		return d
	}
	return v
}

// biReplace is dataclasses.replace(obj, **changes): a new instance made
// by the class's __init__ from obj's init fields and the changes.
func biReplace(ev *Evaluator, c *Call) Value {
	inst, bad := dataclassArg(ev, c, "replace")
	if bad != nil {
		return bad
	}
	if len(c.Args) > 1 {
		return ev.PyErrorf(c.At, "replace() takes 1 positional argument but %d were given", len(c.Args))
	}
	dc := inst.Class.dcOf()
	n := &Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr}
	changed := map[string]bool{}
	for _, k := range c.Kwargs {
		if k.Name == "**" {
			return &OpaqueV{Base{c.At}, "replace(...)"}
		}
		for _, f := range dc.fields {
			if f.name == k.Name && !f.init {
				return ev.PyErrorf(k.At, "field %s is declared with init=False, it cannot be specified with replace()", k.Name)
			}
		}
		changed[k.Name] = true
		n.Kwargs = append(n.Kwargs, k)
	}
	for _, f := range dc.fields {
		if !f.init || changed[f.name] {
			continue
		}
		v, ok := inst.Attrs[f.name]
		if f.initVar {
			return ev.PyErrorf(c.At, "InitVar '%s' must be specified with replace()", f.name)
		}
		if !ok {
			return ev.PyErrorf(c.At, "replace(): field '%s' of %s is not set", f.name, inst.Class.Name)
		}
		n.Kwargs = append(n.Kwargs, Kwarg{f.name, v, c.At, c.At})
	}
	return ev.CallClass(inst.Class, n)
}
