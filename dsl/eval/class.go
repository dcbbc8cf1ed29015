package eval

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// Python classes: a `class` statement outside kernel bodies makes a
// *ClassV whose namespace is its body's bindings; calling it makes an
// *InstanceV. Plain classes run their __init__ with self; @dataclass
// classes (lib_dataclasses.go) get Python's generated __init__ (fields
// in order, defaults, default_factory, __post_init__), field equality,
// frozen semantics and repr; Enum and IntEnum subclasses make their
// members enum values. Attribute lookup follows the instance dict, then
// the classes depth-first left to right (enough for the single
// inheritance the kernels use); properties, staticmethod and classmethod
// are descriptors evaluated with self or the class. A class with a base
// or decorator tilels does not model (a torch module, a ctypes
// structure) stays opaque, as every class was before. T.meta_class
// classes are modelled: their T.inline methods emit TIR on self's state.

type (
	// ClassV is a user class.
	ClassV struct {
		base
		Name  string
		Bases []*ClassV
		attrs map[string]Value
		order []string // names in the order the body binds them
		// DC describes a @dataclass class (nil for a plain class).
		DC *dcInfo
		// enum is the kind of Enum class (enumNone for others); root marks
		// enum.Enum and its library subclasses themselves.
		enum enumKind
		root bool
		// excBase marks a class derived from an exception type: its
		// instances answer unknown attributes with opaque values.
		excBase bool
		def     *syntax.ClassDef
	}
	// InstanceV is an instance of a user class (or an enum member whose
	// value is not an int).
	InstanceV struct {
		base
		Class *ClassV
		attrs map[string]Value
		order []string
	}
	// descV is a property, staticmethod or classmethod object.
	descV struct {
		base
		kind   string // "property", "staticmethod", "classmethod"
		fn     Value
		setter Value
	}
)

type enumKind uint8

const (
	enumNone enumKind = iota
	enumPlain
	enumInt // IntEnum, IntFlag or (int, Enum): members are ints
	enumStr // StrEnum or (str, Enum): members compare equal to their values
)

func (v *ClassV) TypeName() string    { return "type" }
func (v *InstanceV) TypeName() string { return v.Class.Name }
func (v *descV) TypeName() string     { return v.kind }

// maxClassAttrs bounds the attributes of one object: each new one is
// charged against the value budget too.
const maxClassAttrs = 4096

func init() {
	// builtins.go makes these opaque; classes give them meaning (this file's
	// init runs after builtins.go's: files initialise in name order).
	for _, k := range []string{"property", "staticmethod", "classmethod"} {
		kind := k
		builtinNames[kind] = builtin(kind, func(ev *evaluator, c *call) Value {
			if len(c.args) < 1 {
				return ev.pyErrorf(c.span, "%s() takes 1 argument (0 given)", kind)
			}
			return &descV{base{c.span}, kind, c.args[0], nil}
		})
	}
	builtinNames["super"] = builtin("super", biSuper)
	builtinNames["object"] = objectClass
	builtinNames["type"] = builtin("type", biType)
}

// biType is type(obj): an instance's class, a Python scalar's or
// container's builtin type; anything else (and the three-argument form)
// is opaque.
func biType(ev *evaluator, c *call) Value {
	if len(c.args) != 1 || len(c.kwargs) > 0 {
		return &OpaqueV{base{c.span}, "type(...)"}
	}
	switch x := c.args[0].(type) {
	case *InstanceV:
		return x.Class
	case *ClassV:
		return &OpaqueV{base{c.span}, "type"}
	case *IntV, *FloatV, *BoolV, *StrV, *TupleV, *ListV, *DictV:
		if b, ok := builtinNames[x.TypeName()].(*BuiltinV); ok {
			return b
		}
	case *PoisonV, *UnboundV:
		return x
	}
	return &OpaqueV{base{c.span}, "type(" + c.args[0].TypeName() + ")"}
}

// objectClass is Python's object: object() makes a sentinel instance,
// object.__setattr__ stores past a frozen dataclass's refusal (the idiom
// of frozen __post_init__), object.__new__(cls) makes a bare instance.
// It is shared by every evaluation, so it is immutable.
var objectClass = &ClassV{Name: "object", attrs: map[string]Value{}, root: true}

func (ev *evaluator) objectAttr(name string, span source.Span) Value {
	switch name {
	case "__setattr__":
		return builtin("object.__setattr__", func(ev *evaluator, c *call) Value {
			if len(c.args) != 3 {
				return ev.pyErrorf(c.span, "object.__setattr__() takes 3 arguments")
			}
			attr, ok := ev.strArg(c.args[1], c.argSpans[1], "attribute name")
			if !ok {
				return poison(c.span)
			}
			switch o := c.args[0].(type) {
			case *InstanceV:
				if o.Class.enum != enumNone || o.Class == fieldClass {
					return ev.pyErrorf(c.span, "cannot set attributes of %s", o.Class.Name)
				}
				ev.storeAttr(o, attr, c.args[2], c.span)
			case *PoisonV, *UnboundV, *OpaqueV:
			default:
				return ev.pyErrorf(c.argSpans[0], "cannot set '%s' attribute of %s", attr, c.args[0].TypeName())
			}
			return &NoneV{base{c.span}}
		})
	case "__init__":
		return builtin("object.__init__", func(ev *evaluator, c *call) Value { return &NoneV{base{c.span}} })
	case "__new__":
		return builtin("object.__new__", func(ev *evaluator, c *call) Value {
			if len(c.args) < 1 {
				return ev.pyErrorf(c.span, "object.__new__(): not enough arguments")
			}
			cls, ok := c.args[0].(*ClassV)
			if !ok || cls.root {
				if isErr(c.args[0]) {
					return c.args[0]
				}
				return &OpaqueV{base{c.span}, "object.__new__(...)"}
			}
			return &InstanceV{base: base{c.span}, Class: cls, attrs: map[string]Value{}}
		})
	}
	return nil
}

// biSuper is super() in a method (or super(Cls, obj)): an object whose
// attributes are those of the classes after the method's class in the
// instance's MRO, methods bound to the instance.
func biSuper(ev *evaluator, c *call) Value {
	opaque := &OpaqueV{base{c.span}, "super()"}
	var self Value
	var owner *ClassV
	switch {
	case len(c.args) == 2:
		owner, _ = c.args[0].(*ClassV)
		self = c.args[1]
	case len(c.args) == 0 && c.fr != nil && c.fr.fn != nil && c.fr.fn.Def != nil:
		ps := c.fr.fn.Params
		first := append(append([]*syntax.Param(nil), ps.Posonly...), ps.Args...)
		if len(first) == 0 {
			return opaque
		}
		self = c.fr.env.vars[first[0].Name.Id]
	default:
		return opaque
	}
	var cls *ClassV
	switch x := self.(type) {
	case *InstanceV:
		cls = x.Class
	case *ClassV:
		cls = x
	default:
		return opaque
	}
	mro := cls.mro()
	start := -1
	for i, k := range mro {
		if owner != nil {
			if k == owner {
				start = i + 1
			}
		} else if definesDef(k, c.fr.fn.Def) {
			start = i + 1
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return opaque
	}
	proxy := &InstanceV{base: base{c.span}, Class: &ClassV{Name: "super", attrs: map[string]Value{}}, attrs: map[string]Value{}}
	for _, k := range mro[start:] {
		for _, name := range k.order {
			if _, done := proxy.attrs[name]; done {
				continue
			}
			if !ev.charge(c.span, "super object", costEntry) {
				return poison(c.span)
			}
			var v Value
			switch f := k.attrs[name].(type) {
			case *FuncV, *BuiltinV:
				v = ev.bindMethod(f, self, c.span)
			case *descV:
				switch f.kind {
				case "staticmethod":
					v = f.fn
				case "classmethod":
					v = ev.bindMethod(f.fn, cls, c.span)
				default:
					continue // a property through super(): not modelled
				}
			case nil:
				continue
			default:
				v = f
			}
			proxy.attrs[name] = v
			proxy.order = append(proxy.order, name)
		}
	}
	if cls.excBase || cls.hasOpaqueMember() {
		proxy.Class.attrs["__getattr__"] = opaque // answer the rest opaquely
	}
	// An __init__ not written in a class after the method's: a dataclass's
	// generated one, or object.__init__ (which does nothing).
	initDone := false
	for _, k := range mro[start:] {
		if _, ok := k.attrs["__init__"]; ok {
			initDone = true
			break
		}
		if k.DC != nil && k.DC.init {
			dcClass, inst := k, self
			proxy.attrs["__init__"] = builtin(k.Name+".__init__", func(ev *evaluator, c *call) Value {
				if in, ok := inst.(*InstanceV); ok {
					if r := ev.dataclassInit(dcClass, in, c); isErr(r) {
						return r
					}
				}
				return &NoneV{base{c.span}}
			})
			initDone = true
			break
		}
	}
	if !initDone && !cls.excBase {
		proxy.attrs["__init__"] = builtin("object.__init__", func(ev *evaluator, c *call) Value { return &NoneV{base{c.span}} })
	}
	return proxy
}

// definesDef reports whether class k's namespace holds the function of def d.
func definesDef(k *ClassV, d *syntax.FunctionDef) bool {
	for _, v := range k.attrs {
		if dv, ok := v.(*descV); ok {
			v = dv.fn
		}
		if f, ok := v.(*FuncV); ok && f.Def == d {
			return true
		}
	}
	return false
}

// execClassDef evaluates a class statement.
func (ev *evaluator) execClassDef(fr *frame, s *syntax.ClassDef) {
	var decos []Value
	for _, d := range s.Decorators {
		decos = append(decos, ev.expr(fr, d))
	}
	opaque := func() {
		fr.env.set(s.Name.Id, &OpaqueV{base{s.Name.Loc}, "class " + s.Name.Id})
	}
	if ev.inKernelTIR(fr) || len(s.TypeParams) > 0 {
		opaque()
		return
	}
	cls := &ClassV{base: base{s.Name.Loc}, Name: s.Name.Id, attrs: map[string]Value{}, def: s}
	mixin := ""
	for _, b := range s.Bases {
		switch b := ev.expr(fr, b).(type) {
		case *ClassV:
			cls.Bases = append(cls.Bases, b)
			cls.enum = max(cls.enum, b.enum)
			cls.excBase = cls.excBase || b.excBase
		case *BuiltinV:
			if b.Name != "int" && b.Name != "str" {
				opaque()
				return
			}
			mixin = b.Name
		case *OpaqueV:
			if isExceptionName(b.Path) {
				cls.excBase = true
			} else if b.Path != "object" {
				opaque()
				return
			}
		default:
			opaque()
			return
		}
	}
	switch {
	case mixin == "":
	case cls.enum == enumNone:
		opaque() // a subclass of int or str: not modelled
		return
	case mixin == "int":
		cls.enum = enumInt
	default:
		cls.enum = enumStr
	}
	if len(s.Keywords) > 0 {
		for _, k := range s.Keywords {
			ev.expr(fr, k.Value)
		}
		opaque() // metaclass= and __init_subclass__ arguments: not modelled
		return
	}
	// Decorators other than dataclass, enum.unique and T.meta_class (a
	// user's registry) keep the class opaque: their meaning is not
	// modelled.
	for _, d := range decos {
		if b, ok := d.(*BuiltinV); !ok || !classDecorator(b.Name) && b.Name != "T.meta_class" {
			opaque()
			return
		}
	}
	// The body runs in its own scope; methods close over the enclosing
	// one (a class scope is not visible to its methods).
	cs := newScope(fr.env)
	body := &frame{env: cs, fn: fr.fn}
	for _, st := range s.Body {
		if ev.halted {
			return
		}
		// Annotations in a class body only declare fields: they are not
		// evaluated (`x: int | None` is not an expression tilels models).
		if a, ok := st.(*syntax.AnnAssign); ok {
			if a.Value != nil && ev.step(a.Loc) {
				ev.assign(body, a.Target, ev.expr(body, a.Value), a.Value.Span(), false)
			}
			continue
		}
		if ctl := ev.execStmt(body, st); ctl == ctrlRaise {
			fr.env.set(s.Name.Id, poison(s.Name.Loc))
			return
		} else if ctl != ctrlNone {
			break
		}
	}
	for _, name := range bodyNames(s.Body) {
		v, ok := cs.vars[name]
		if !ok {
			continue
		}
		if _, dup := cls.attrs[name]; !dup {
			cls.order = append(cls.order, name)
		}
		cls.attrs[name] = v
	}
	for name, v := range cs.vars {
		if _, ok := cls.attrs[name]; !ok {
			cls.attrs[name] = v
			cls.order = append(cls.order, name)
		}
	}
	// Special methods tilels does not honour (__eq__, __call__,
	// __getitem__, __repr__, ...) would make its answers wrong: such a
	// class stays opaque.
	for name := range cls.attrs {
		if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") && !modelledDunder[name] {
			opaque()
			return
		}
	}
	if !ev.charge(s.Name.Loc, "class", mulCost(int64(len(cls.attrs)), costEntry)) {
		fr.env.set(s.Name.Id, poison(s.Name.Loc))
		return
	}
	for _, v := range cls.attrs {
		rehome(v, cs, fr.env)
	}
	if cls.enum == enumInt {
		// IntEnum members are EnumV (ints in arithmetic), which have no
		// methods: an IntEnum that defines some stays opaque.
		for _, v := range cls.attrs {
			switch v.(type) {
			case *FuncV, *descV:
				opaque()
				return
			}
		}
	}
	if cls.enum != enumNone {
		ev.makeEnumMembers(cls)
	}
	var v Value = cls
	for i := len(decos) - 1; i >= 0; i-- {
		v = ev.callValue(decos[i], &call{span: s.Decorators[i].Span(), fnSpan: s.Decorators[i].Span(), args: []Value{v}, argSpans: []source.Span{s.Name.Loc}})
	}
	fr.env.set(s.Name.Id, v)
}

// modelledDunder are the special names a modelled class may define.
var modelledDunder = map[string]bool{"__init__": true, "__post_init__": true, "__slots__": true,
	"__annotations__": true, "__match_args__": true, "__module__": true, "__qualname__": true}

// rehome makes a method defined in the class scope cs close over outer.
func rehome(v Value, cs, outer *scope) {
	switch f := v.(type) {
	case *FuncV:
		if f.Env == cs {
			f.Env = outer
		}
	case *descV:
		rehome(f.fn, cs, outer)
		if f.setter != nil {
			rehome(f.setter, cs, outer)
		}
	}
}

// bodyNames lists the names a class body binds at its top level, in order.
func bodyNames(body []syntax.Stmt) []string {
	var out []string
	add := func(e syntax.Expr) {
		if n, ok := e.(*syntax.Name); ok {
			out = append(out, n.Id)
		}
	}
	for _, s := range body {
		switch s := s.(type) {
		case *syntax.Assign:
			for _, t := range s.Targets {
				add(t)
				if tu, ok := t.(*syntax.Tuple); ok {
					for _, e := range tu.Elts {
						add(e)
					}
				}
			}
		case *syntax.AnnAssign:
			add(s.Target)
		case *syntax.FunctionDef:
			out = append(out, s.Name.Id)
		case *syntax.ClassDef:
			out = append(out, s.Name.Id)
		}
	}
	return out
}

func isExceptionName(p string) bool {
	return strings.HasSuffix(p, "Error") || strings.HasSuffix(p, "Exception") || strings.HasSuffix(p, "Warning")
}

// lookup finds name in the class or its bases (depth first, left to
// right) and the class that defines it.
func (c *ClassV) lookup(name string) (Value, *ClassV) {
	return c.lookupDepth(name, 0)
}

func (c *ClassV) lookupDepth(name string, depth int) (Value, *ClassV) {
	if v, ok := c.attrs[name]; ok {
		return v, c
	}
	if depth > 64 {
		return nil, nil
	}
	for _, b := range c.Bases {
		if v, owner := b.lookupDepth(name, depth+1); v != nil {
			return v, owner
		}
	}
	return nil, nil
}

// isSubclass reports whether c is sub or one of its bases.
func (c *ClassV) isSubclassOf(sup *ClassV) bool {
	return c.subDepth(sup, 0)
}

func (c *ClassV) subDepth(sup *ClassV, depth int) bool {
	if c == sup || sup == objectClass {
		return true
	}
	if depth > 64 {
		return false
	}
	for _, b := range c.Bases {
		if b.subDepth(sup, depth+1) {
			return true
		}
	}
	return false
}

// bind returns a method bound to self.
func (ev *evaluator) bindMethod(fn Value, self Value, selfSpan source.Span) Value {
	name := "method"
	if f, ok := fn.(*FuncV); ok {
		name = f.Name
	}
	return &BuiltinV{base{selfSpan}, name, func(ev *evaluator, c *call) Value {
		n := *c
		n.args = append([]Value{self}, c.args...)
		n.argSpans = append([]source.Span{selfSpan}, c.argSpans...)
		return ev.callValue(fn, &n)
	}}
}

// callWithSelf calls fn(self, args...) (a property getter, __post_init__).
func (ev *evaluator) callWithSelf(fn, self Value, span source.Span, args ...Value) Value {
	c := &call{span: span, fnSpan: span, args: append([]Value{self}, args...)}
	c.argSpans = make([]source.Span, len(c.args))
	for i := range c.argSpans {
		c.argSpans[i] = span
	}
	return ev.callValue(fn, c)
}

// classObjAttr is obj.name for classes, instances and descriptors; nil
// when there is no such attribute (the caller reports it).
func (ev *evaluator) classObjAttr(obj Value, name string, span source.Span) Value {
	switch o := obj.(type) {
	case *InstanceV:
		return ev.instanceAttr(o, name, span)
	case *ClassV:
		return ev.classAttr(o, name, span)
	case *descV:
		if o.kind == "property" && (name == "setter" || name == "getter") {
			d := o
			return builtin("property."+name, func(ev *evaluator, c *call) Value {
				if len(c.args) != 1 {
					return ev.pyErrorf(c.span, "%s() takes 1 argument", name)
				}
				if name == "setter" {
					return &descV{base{c.span}, "property", d.fn, c.args[0]}
				}
				return &descV{base{c.span}, "property", c.args[0], d.setter}
			})
		}
		if name == "fget" && o.kind == "property" {
			return o.fn
		}
	}
	return nil
}

func (ev *evaluator) instanceAttr(o *InstanceV, name string, span source.Span) Value {
	if v, ok := o.attrs[name]; ok {
		return v
	}
	switch name {
	case "__class__":
		return o.Class
	case "__dict__":
		if o.Class.enum != enumNone {
			break
		}
		d := newDict(span)
		for _, k := range o.order {
			if !ev.setEntry(d, &StrV{base{span}, k}, o.attrs[k], span) {
				return poison(span)
			}
		}
		return d
	}
	v, _ := o.Class.lookup(name)
	switch f := v.(type) {
	case nil:
		if o.Class.excBase || o.Class.hasOpaqueMember() {
			return &OpaqueV{base{span}, o.Class.Name + "(...)." + name}
		}
		return nil
	case *FuncV, *BuiltinV:
		return ev.bindMethod(f, o, span)
	case *descV:
		switch f.kind {
		case "property":
			return ev.callWithSelf(f.fn, o, span)
		case "staticmethod":
			return f.fn
		case "classmethod":
			return ev.bindMethod(f.fn, o.Class, span)
		}
	}
	return v
}

// hasOpaqueMember reports whether the class has a __getattr__ (answered
// with opaque values).
func (c *ClassV) hasOpaqueMember() bool {
	v, _ := c.lookup("__getattr__")
	return v != nil
}

func (ev *evaluator) classAttr(o *ClassV, name string, span source.Span) Value {
	if o == objectClass {
		if v := ev.objectAttr(name, span); v != nil {
			return v
		}
	}
	switch name {
	case "__name__", "__qualname__":
		return &StrV{base{span}, o.Name}
	case "__mro__", "__bases__":
		var out []Value
		if name == "__mro__" {
			out = append(out, o)
		}
		for _, b := range o.Bases {
			out = append(out, b)
		}
		return &TupleV{base{span}, out}
	case "__members__":
		if o.enum != enumNone {
			d := newDict(span)
			for _, m := range enumMembers(o) {
				if !ev.setEntry(d, &StrV{base{span}, enumName(m)}, m, span) {
					return poison(span)
				}
			}
			return d
		}
	}
	v, _ := o.lookup(name)
	switch f := v.(type) {
	case nil:
		if o.excBase || o.root {
			return &OpaqueV{base{span}, o.Name + "." + name}
		}
		return nil
	case *descV:
		switch f.kind {
		case "staticmethod":
			return f.fn
		case "classmethod":
			return ev.bindMethod(f.fn, o, span)
		}
	}
	return v
}

// heldAttr is the value an instance or class attribute holds now, without
// calling a property or binding a method; nil when there is none.
func (ev *evaluator) heldAttr(obj Value, name string, span source.Span) Value {
	switch o := obj.(type) {
	case *InstanceV:
		if v, ok := o.attrs[name]; ok {
			return v
		}
	case *ClassV:
		if v, _ := o.lookup(name); v != nil {
			if _, ok := v.(*descV); !ok {
				return v
			}
		}
	}
	return nil
}

// setAttr stores obj.name = v: instance and class attributes; stores on
// other objects are ignored as before. Frozen dataclass instances refuse
// it as Python does (dataclasses.FrozenInstanceError).
func (ev *evaluator) setAttr(obj Value, name string, v Value, span source.Span) {
	switch o := obj.(type) {
	case *InstanceV:
		if o.Class.enum != enumNone {
			ev.pyErrorf(span, "cannot reassign member '%s'", name)
			return
		}
		if o.Class == objectClass || o.Class == fieldClass {
			ev.pyErrorf(span, "'%s' object has no attribute '%s'", o.Class.Name, name)
			return
		}
		// A frozen dataclass's __setattr__ refuses every assignment, to
		// fields and properties alike.
		if dc := o.Class.dcOf(); dc != nil && dc.frozen {
			ev.pyErrorf(span, "cannot assign to field '%s' (FrozenInstanceError: %s is a frozen dataclass)", name, o.Class.Name)
			return
		}
		if d, _ := o.Class.lookup(name); d != nil {
			if p, ok := d.(*descV); ok && p.kind == "property" {
				if p.setter == nil {
					ev.pyErrorf(span, "property '%s' of '%s' object has no setter", name, o.Class.Name)
					return
				}
				ev.callWithSelf(p.setter, o, span, v)
				return
			}
		}
		ev.storeAttr(o, name, v, span)
	case *ClassV:
		if o.root {
			ev.pyErrorf(span, "cannot set '%s' attribute of immutable type '%s'", name, o.Name)
			return
		}
		if _, ok := o.attrs[name]; !ok {
			if len(o.attrs) >= maxClassAttrs || !ev.charge(span, "class attribute", costEntry) {
				return
			}
			o.order = append(o.order, name)
		}
		o.attrs[name] = v
	}
}

// storeAttr sets an attribute without the frozen check (generated
// __init__, replace).
func (ev *evaluator) storeAttr(o *InstanceV, name string, v Value, span source.Span) bool {
	if _, ok := o.attrs[name]; !ok {
		if len(o.attrs) >= maxClassAttrs {
			ev.errorf(span, CodeBudget, "object has more than %d attributes", maxClassAttrs)
			return false
		}
		if !ev.charge(span, "object attribute", costEntry) {
			return false
		}
		o.order = append(o.order, name)
	}
	o.attrs[name] = v
	return true
}

// callClass is Cls(...): an enum lookup, a dataclass's generated
// __init__, or a plain class's __init__.
func (ev *evaluator) callClass(cls *ClassV, c *call) Value {
	if cls == objectClass {
		if len(c.args) > 0 || len(c.kwargs) > 0 {
			return ev.pyErrorf(c.span, "object() takes no arguments")
		}
		return &InstanceV{base: base{c.span}, Class: objectClass, attrs: map[string]Value{}}
	}
	if cls.root {
		return &OpaqueV{base{c.span}, cls.Name + "(...)"}
	}
	if cls.enum != enumNone {
		return ev.enumLookup(cls, c)
	}
	for _, a := range c.args {
		if _, ok := a.(*PoisonV); ok {
			return a
		}
	}
	if !ev.charge(c.span, "object", costBox) {
		return poison(c.span)
	}
	inst := &InstanceV{base: base{c.span}, Class: cls, attrs: map[string]Value{}}
	// The first class in the MRO with an __init__ of its own, or a
	// dataclass (whose __init__ is generated), initialises the instance.
	for _, k := range cls.mro() {
		if init, ok := k.attrs["__init__"]; ok {
			r := ev.callWithArgs(init, inst, c)
			if _, bad := r.(*PoisonV); bad {
				return r
			}
			return inst
		}
		if k.DC != nil && k.DC.init {
			return ev.dataclassInit(k, inst, c)
		}
	}
	if len(c.args) > 0 || len(c.kwargs) > 0 {
		if cls.excBase {
			return inst
		}
		return ev.pyErrorf(c.span, "%s() takes no arguments", cls.Name)
	}
	return inst
}

// mro is the class and its bases, depth first and left to right, each
// once (Python's C3 order for the hierarchies kernels write).
func (c *ClassV) mro() []*ClassV {
	var out []*ClassV
	seen := map[*ClassV]bool{}
	var walk func(k *ClassV, depth int)
	walk = func(k *ClassV, depth int) {
		if seen[k] || depth > 64 || len(out) > 256 {
			return
		}
		seen[k] = true
		out = append(out, k)
		for _, b := range k.Bases {
			walk(b, depth+1)
		}
	}
	walk(c, 0)
	return out
}

// dcOf is the dataclass description that governs c's instances: c's own
// or the nearest dataclass base's.
func (c *ClassV) dcOf() *dcInfo {
	if c.DC != nil {
		return c.DC
	}
	for _, k := range c.mro() {
		if k.DC != nil {
			return k.DC
		}
	}
	return nil
}

// callWithArgs calls fn(self, *c.args, **c.kwargs).
func (ev *evaluator) callWithArgs(fn, self Value, c *call) Value {
	n := *c
	n.args = append([]Value{self}, c.args...)
	n.argSpans = append([]source.Span{c.fnSpan}, c.argSpans...)
	return ev.callValue(fn, &n)
}

// ---- enums ----

// enumRoots are enum.Enum and its library subclasses.
var enumRoots = map[string]enumKind{"Enum": enumPlain, "IntEnum": enumInt, "IntFlag": enumInt, "Flag": enumPlain, "StrEnum": enumStr}

func enumRootClass(name string, span source.Span) *ClassV {
	return &ClassV{base: base{span}, Name: name, attrs: map[string]Value{}, enum: enumRoots[name], root: true}
}

func enumAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	if _, ok := enumRoots[name]; ok {
		return enumRootClass(name, span), true
	}
	switch name {
	case "unique":
		return builtin("enum.unique", func(ev *evaluator, c *call) Value {
			if len(c.args) != 1 {
				return ev.pyErrorf(c.span, "unique() takes 1 argument")
			}
			return c.args[0]
		}), true
	}
	return nil, false
}

// makeEnumMembers turns the class's public non-method attributes into
// members: EnumV for an IntEnum (ints in arithmetic, see intEnumOperand),
// else an instance with name and value.
func (ev *evaluator) makeEnumMembers(cls *ClassV) {
	for _, name := range cls.order {
		if strings.HasPrefix(name, "_") {
			continue
		}
		v := cls.attrs[name]
		switch v.(type) {
		case *FuncV, *descV, *BuiltinV, *ClassV:
			continue
		}
		if n, ok := v.(*IntV); ok && cls.enum == enumInt {
			cls.attrs[name] = &EnumV{base{v.Span()}, cls.Name, name, n.V}
			continue
		}
		m := &InstanceV{base: base{v.Span()}, Class: cls, attrs: map[string]Value{"name": &StrV{base{v.Span()}, name}, "value": v, "_name_": &StrV{base{v.Span()}, name}, "_value_": v}, order: []string{"name", "value"}}
		cls.attrs[name] = m
	}
}

func enumMembers(cls *ClassV) []Value {
	var out []Value
	for _, name := range cls.order {
		switch m := cls.attrs[name].(type) {
		case *EnumV:
			if m.Type == cls.Name {
				out = append(out, m)
			}
		case *InstanceV:
			if m.Class == cls {
				out = append(out, m)
			}
		}
	}
	return out
}

func enumName(m Value) string {
	switch m := m.(type) {
	case *EnumV:
		return m.Name
	case *InstanceV:
		if s, ok := m.attrs["name"].(*StrV); ok {
			return s.V
		}
	}
	return ""
}

func enumValue(m Value) Value {
	switch m := m.(type) {
	case *EnumV:
		return &IntV{m.base, m.V}
	case *InstanceV:
		return m.attrs["value"]
	}
	return nil
}

// enumLookup is EnumCls(value): the member with that value.
func (ev *evaluator) enumLookup(cls *ClassV, c *call) Value {
	if len(c.args) != 1 || len(c.kwargs) > 0 {
		return &OpaqueV{base{c.span}, cls.Name + "(...)"} // the functional API
	}
	x := c.args[0]
	if isErr(x) {
		return x
	}
	for _, m := range enumMembers(cls) {
		if pyIs(m, x) || pyEqual(enumValue(m), x) {
			if e, ok := m.(*EnumV); ok {
				return &EnumV{base{c.span}, e.Type, e.Name, e.V}
			}
			return m
		}
	}
	return ev.pyErrorf(c.argSpans[0], "%s is not a valid %s", Repr(x), cls.Name)
}

// copyInstance is copy.copy / copy.deepcopy of an instance: a new
// instance of the same class with the attributes copied (deep: each
// copied too). Enum members are singletons.
func copyInstance(x *InstanceV, deep bool, span source.Span, memo map[Value]Value) Value {
	if x.Class.enum != enumNone || x.Class == fieldClass {
		return x
	}
	n := &InstanceV{base: base{span}, Class: x.Class, attrs: make(map[string]Value, len(x.attrs)), order: append([]string(nil), x.order...)}
	memo[x] = n
	for k, v := range x.attrs {
		if deep {
			v = copyMemo(v, true, span, memo)
		}
		n.attrs[k] = v
	}
	return n
}

// libPlainEnums are the library's Enum (not IntEnum) types modelled as
// EnumV; every other EnumV is a user IntEnum member.
var libPlainEnums = map[string]bool{"SwizzleMode": true}

// intEnumOperand is v as an int when it is an IntEnum member (IntEnum
// members are ints in arithmetic), else v.
func intEnumOperand(v Value) Value {
	if e, ok := v.(*EnumV); ok && !libPlainEnums[e.Type] {
		return &IntV{e.base, e.V}
	}
	return v
}

// ---- equality, hashing, repr ----

// instanceEq is == on instances: a dataclass compares its fields (same
// class), an enum member or plain instance is equal only to itself; a
// str enum member equals its value.
func instanceEq(a *InstanceV, y Value, n *int) bool {
	if a.Class.enum == enumStr {
		if s, ok := y.(*StrV); ok {
			return pyEq(a.attrs["value"], s, n)
		}
	}
	b, ok := y.(*InstanceV)
	if !ok {
		return false
	}
	if a == b {
		return true
	}
	dc := a.Class.dcOf()
	if a.Class != b.Class || dc == nil || !dc.eq {
		return false
	}
	for _, f := range dc.fields {
		if !f.compare {
			continue
		}
		if !pyEq(a.attrs[f.name], b.attrs[f.name], n) {
			return false
		}
	}
	return true
}

// instanceKey is the hash key of an instance: a frozen dataclass hashes
// its fields, an eq dataclass that is not frozen is unhashable (Python
// sets __hash__ to None), any other instance hashes by identity.
func instanceKey(v *InstanceV, limit, depth int) (string, keyStatus) {
	dc := v.Class.dcOf()
	if v.Class.enum == enumStr {
		return hashKeyN(v.attrs["value"], limit, depth)
	}
	if dc == nil || !dc.eq {
		return fmt.Sprintf("I%p", v), keyOK
	}
	if !dc.frozen && !dc.unsafeHash {
		return "", keyUnhashable
	}
	if depth >= maxKeyDepth {
		return "", keyTooLarge
	}
	var b strings.Builder
	fmt.Fprintf(&b, "D%p(", v.Class)
	for _, f := range dc.fields {
		if !f.compare {
			continue
		}
		k, st := hashKeyN(v.attrs[f.name], limit-b.Len(), depth+1)
		if st != keyOK {
			return "", st
		}
		if b.Len()+len(k) > limit {
			return "", keyTooLarge
		}
		fmt.Fprintf(&b, "%d:%s", len(k), k)
	}
	b.WriteByte(')')
	return b.String(), keyOK
}

// writeClassRepr writes the repr of a class, instance or descriptor.
func writeClassRepr(b *reprBuilder, v Value, depth int) {
	switch v := v.(type) {
	case *ClassV:
		b.WriteString("<class '" + v.Name + "'>")
	case *descV:
		b.WriteString("<" + v.kind + " object>")
	case *InstanceV:
		switch {
		case v.Class.enum != enumNone:
			b.WriteString("<" + v.Class.Name + "." + enumName(v) + ": ")
			writeRepr(b, v.attrs["value"], depth+1)
			b.WriteString(">")
		case v.Class.dcOf() != nil && v.Class.dcOf().repr:
			b.WriteString(v.Class.Name + "(")
			first := true
			for _, f := range v.Class.dcOf().fields {
				if !f.repr {
					continue
				}
				if !first {
					b.WriteString(", ")
				}
				first = false
				b.WriteString(f.name + "=")
				if x, ok := v.attrs[f.name]; ok {
					writeRepr(b, x, depth+1)
				} else {
					b.WriteString("<unset>")
				}
			}
			b.WriteByte(')')
		default:
			b.WriteString("<" + v.Class.Name + " object>")
		}
	}
}
