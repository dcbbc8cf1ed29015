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
		Base
		Name  string
		Bases []*ClassV
		Attrs map[string]Value
		Order []string // names in the order the body binds them
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
		Base
		Class *ClassV
		Attrs map[string]Value
		order []string
	}
	// descV is a property, staticmethod or classmethod object.
	descV struct {
		Base
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
		builtinNames[kind] = Builtin(kind, func(ev *Evaluator, c *Call) Value {
			if len(c.Args) < 1 {
				return ev.PyErrorf(c.At, "%s() takes 1 argument (0 given)", kind)
			}
			return &descV{Base{c.At}, kind, c.Args[0], nil}
		})
	}
	builtinNames["super"] = Builtin("super", biSuper)
	builtinNames["object"] = objectClass
	builtinNames["type"] = Builtin("type", biType)
}

// biType is type(obj): an instance's class, a Python scalar's or
// container's builtin type; anything else (and the three-argument form)
// is opaque.
func biType(ev *Evaluator, c *Call) Value {
	if len(c.Args) != 1 || len(c.Kwargs) > 0 {
		return &OpaqueV{Base{c.At}, "type(...)"}
	}
	switch x := c.Args[0].(type) {
	case *InstanceV:
		return x.Class
	case *ClassV:
		return &OpaqueV{Base{c.At}, "type"}
	case *IntV, *FloatV, *BoolV, *StrV, *TupleV, *ListV, *DictV:
		if b, ok := builtinNames[x.TypeName()].(*BuiltinV); ok {
			return b
		}
	case *PoisonV, *UnboundV:
		return x
	}
	return &OpaqueV{Base{c.At}, "type(" + c.Args[0].TypeName() + ")"}
}

// objectClass is Python's object: object() makes a sentinel instance,
// object.__setattr__ stores past a frozen dataclass's refusal (the idiom
// of frozen __post_init__), object.__new__(cls) makes a bare instance.
// It is shared by every evaluation, so it is immutable.
var objectClass = &ClassV{Name: "object", Attrs: map[string]Value{}, root: true}

func (ev *Evaluator) objectAttr(name string, span source.Span) Value {
	switch name {
	case "__setattr__":
		return Builtin("object.__setattr__", func(ev *Evaluator, c *Call) Value {
			if len(c.Args) != 3 {
				return ev.PyErrorf(c.At, "object.__setattr__() takes 3 arguments")
			}
			attr, ok := ev.StrArg(c.Args[1], c.ArgSpans[1], "attribute name")
			if !ok {
				return Poison(c.At)
			}
			switch o := c.Args[0].(type) {
			case *InstanceV:
				if o.Class.enum != enumNone || o.Class == fieldClass {
					return ev.PyErrorf(c.At, "cannot set attributes of %s", o.Class.Name)
				}
				ev.StoreAttr(o, attr, c.Args[2], c.At)
			case *PoisonV, *UnboundV, *OpaqueV:
			default:
				return ev.PyErrorf(c.ArgSpans[0], "cannot set '%s' attribute of %s", attr, c.Args[0].TypeName())
			}
			return &NoneV{Base{c.At}}
		})
	case "__init__":
		return Builtin("object.__init__", func(ev *Evaluator, c *Call) Value { return &NoneV{Base{c.At}} })
	case "__new__":
		return Builtin("object.__new__", func(ev *Evaluator, c *Call) Value {
			if len(c.Args) < 1 {
				return ev.PyErrorf(c.At, "object.__new__(): not enough arguments")
			}
			cls, ok := c.Args[0].(*ClassV)
			if !ok || cls.root {
				if IsErr(c.Args[0]) {
					return c.Args[0]
				}
				return &OpaqueV{Base{c.At}, "object.__new__(...)"}
			}
			return &InstanceV{Base: Base{c.At}, Class: cls, Attrs: map[string]Value{}}
		})
	}
	return nil
}

// biSuper is super() in a method (or super(Cls, obj)): an object whose
// attributes are those of the classes after the method's class in the
// instance's MRO, methods bound to the instance.
func biSuper(ev *Evaluator, c *Call) Value {
	opaque := &OpaqueV{Base{c.At}, "super()"}
	var self Value
	var owner *ClassV
	switch {
	case len(c.Args) == 2:
		owner, _ = c.Args[0].(*ClassV)
		self = c.Args[1]
	case len(c.Args) == 0 && c.Fr != nil && c.Fr.fn != nil && c.Fr.fn.Def != nil:
		ps := c.Fr.fn.Params
		first := append(append([]*syntax.Param(nil), ps.Posonly...), ps.Args...)
		if len(first) == 0 {
			return opaque
		}
		self = c.Fr.env.vars[first[0].Name.Id]
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
		} else if definesDef(k, c.Fr.fn.Def) {
			start = i + 1
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return opaque
	}
	proxy := &InstanceV{Base: Base{c.At}, Class: &ClassV{Name: "super", Attrs: map[string]Value{}}, Attrs: map[string]Value{}}
	for _, k := range mro[start:] {
		for _, name := range k.Order {
			if _, done := proxy.Attrs[name]; done {
				continue
			}
			if !ev.charge(c.At, "super object", costEntry) {
				return Poison(c.At)
			}
			var v Value
			switch f := k.Attrs[name].(type) {
			case *FuncV, *BuiltinV:
				v = ev.bindMethod(f, self, c.At)
			case *descV:
				switch f.kind {
				case "staticmethod":
					v = f.fn
				case "classmethod":
					v = ev.bindMethod(f.fn, cls, c.At)
				default:
					continue // a property through super(): not modelled
				}
			case nil:
				continue
			default:
				v = f
			}
			proxy.Attrs[name] = v
			proxy.order = append(proxy.order, name)
		}
	}
	if cls.excBase || cls.hasOpaqueMember() {
		proxy.Class.Attrs["__getattr__"] = opaque // answer the rest opaquely
	}
	// An __init__ not written in a class after the method's: a dataclass's
	// generated one, or object.__init__ (which does nothing).
	initDone := false
	for _, k := range mro[start:] {
		if _, ok := k.Attrs["__init__"]; ok {
			initDone = true
			break
		}
		if k.DC != nil && k.DC.init {
			dcClass, inst := k, self
			proxy.Attrs["__init__"] = Builtin(k.Name+".__init__", func(ev *Evaluator, c *Call) Value {
				if in, ok := inst.(*InstanceV); ok {
					if r := ev.dataclassInit(dcClass, in, c); IsErr(r) {
						return r
					}
				}
				return &NoneV{Base{c.At}}
			})
			initDone = true
			break
		}
	}
	if !initDone && !cls.excBase {
		proxy.Attrs["__init__"] = Builtin("object.__init__", func(ev *Evaluator, c *Call) Value { return &NoneV{Base{c.At}} })
	}
	return proxy
}

// definesDef reports whether class k's namespace holds the function of def d.
func definesDef(k *ClassV, d *syntax.FunctionDef) bool {
	for _, v := range k.Attrs {
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
func (ev *Evaluator) execClassDef(fr *frame, s *syntax.ClassDef) {
	var decos []Value
	for _, d := range s.Decorators {
		decos = append(decos, ev.expr(fr, d))
	}
	opaque := func() {
		fr.env.set(s.Name.Id, &OpaqueV{Base{s.Name.Loc}, "class " + s.Name.Id})
	}
	if ev.inKernelTIR(fr) || len(s.TypeParams) > 0 {
		opaque()
		return
	}
	cls := &ClassV{Base: Base{s.Name.Loc}, Name: s.Name.Id, Attrs: map[string]Value{}, def: s}
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
		if ev.Halted {
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
			fr.env.set(s.Name.Id, Poison(s.Name.Loc))
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
		if _, dup := cls.Attrs[name]; !dup {
			cls.Order = append(cls.Order, name)
		}
		cls.Attrs[name] = v
	}
	for name, v := range cs.vars {
		if _, ok := cls.Attrs[name]; !ok {
			cls.Attrs[name] = v
			cls.Order = append(cls.Order, name)
		}
	}
	// Special methods tilels does not honour (__eq__, __call__,
	// __getitem__, __repr__, ...) would make its answers wrong: such a
	// class stays opaque.
	for name := range cls.Attrs {
		if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") && !modelledDunder[name] {
			opaque()
			return
		}
	}
	if !ev.charge(s.Name.Loc, "class", mulCost(int64(len(cls.Attrs)), costEntry)) {
		fr.env.set(s.Name.Id, Poison(s.Name.Loc))
		return
	}
	for _, v := range cls.Attrs {
		rehome(v, cs, fr.env)
	}
	if cls.enum == enumInt {
		// IntEnum members are EnumV (ints in arithmetic), which have no
		// methods: an IntEnum that defines some stays opaque.
		for _, v := range cls.Attrs {
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
		v = ev.CallValue(decos[i], &Call{At: s.Decorators[i].Span(), FnSpan: s.Decorators[i].Span(), Args: []Value{v}, ArgSpans: []source.Span{s.Name.Loc}})
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
	if v, ok := c.Attrs[name]; ok {
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
func (ev *Evaluator) bindMethod(fn Value, self Value, selfSpan source.Span) Value {
	name := "method"
	if f, ok := fn.(*FuncV); ok {
		name = f.Name
	}
	return &BuiltinV{Base{selfSpan}, name, func(ev *Evaluator, c *Call) Value {
		n := *c
		n.Args = append([]Value{self}, c.Args...)
		n.ArgSpans = append([]source.Span{selfSpan}, c.ArgSpans...)
		return ev.CallValue(fn, &n)
	}}
}

// callWithSelf calls fn(self, args...) (a property getter, __post_init__).
func (ev *Evaluator) callWithSelf(fn, self Value, span source.Span, args ...Value) Value {
	c := &Call{At: span, FnSpan: span, Args: append([]Value{self}, args...)}
	c.ArgSpans = make([]source.Span, len(c.Args))
	for i := range c.ArgSpans {
		c.ArgSpans[i] = span
	}
	return ev.CallValue(fn, c)
}

// classObjAttr is obj.name for classes, instances and descriptors; nil
// when there is no such attribute (the caller reports it).
func (ev *Evaluator) classObjAttr(obj Value, name string, span source.Span) Value {
	switch o := obj.(type) {
	case *InstanceV:
		return ev.instanceAttr(o, name, span)
	case *ClassV:
		return ev.classAttr(o, name, span)
	case *descV:
		if o.kind == "property" && (name == "setter" || name == "getter") {
			d := o
			return Builtin("property."+name, func(ev *Evaluator, c *Call) Value {
				if len(c.Args) != 1 {
					return ev.PyErrorf(c.At, "%s() takes 1 argument", name)
				}
				if name == "setter" {
					return &descV{Base{c.At}, "property", d.fn, c.Args[0]}
				}
				return &descV{Base{c.At}, "property", c.Args[0], d.setter}
			})
		}
		if name == "fget" && o.kind == "property" {
			return o.fn
		}
	}
	return nil
}

func (ev *Evaluator) instanceAttr(o *InstanceV, name string, span source.Span) Value {
	if v, ok := o.Attrs[name]; ok {
		return v
	}
	switch name {
	case "__class__":
		return o.Class
	case "__dict__":
		if o.Class.enum != enumNone {
			break
		}
		d := NewDict(span)
		for _, k := range o.order {
			if !ev.setEntry(d, &StrV{Base{span}, k}, o.Attrs[k], span) {
				return Poison(span)
			}
		}
		return d
	}
	v, _ := o.Class.lookup(name)
	switch f := v.(type) {
	case nil:
		if o.Class.excBase || o.Class.hasOpaqueMember() {
			return &OpaqueV{Base{span}, o.Class.Name + "(...)." + name}
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

func (ev *Evaluator) classAttr(o *ClassV, name string, span source.Span) Value {
	if o == objectClass {
		if v := ev.objectAttr(name, span); v != nil {
			return v
		}
	}
	switch name {
	case "__name__", "__qualname__":
		return &StrV{Base{span}, o.Name}
	case "__mro__", "__bases__":
		var out []Value
		if name == "__mro__" {
			out = append(out, o)
		}
		for _, b := range o.Bases {
			out = append(out, b)
		}
		return &TupleV{Base{span}, out}
	case "__members__":
		if o.enum != enumNone {
			d := NewDict(span)
			for _, m := range enumMembers(o) {
				if !ev.setEntry(d, &StrV{Base{span}, enumName(m)}, m, span) {
					return Poison(span)
				}
			}
			return d
		}
	}
	v, _ := o.lookup(name)
	switch f := v.(type) {
	case nil:
		if o.excBase || o.root {
			return &OpaqueV{Base{span}, o.Name + "." + name}
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
func (ev *Evaluator) heldAttr(obj Value, name string, span source.Span) Value {
	switch o := obj.(type) {
	case *InstanceV:
		if v, ok := o.Attrs[name]; ok {
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
func (ev *Evaluator) setAttr(obj Value, name string, v Value, span source.Span) {
	switch o := obj.(type) {
	case *InstanceV:
		if o.Class.enum != enumNone {
			ev.PyErrorf(span, "cannot reassign member '%s'", name)
			return
		}
		if o.Class == objectClass || o.Class == fieldClass {
			ev.PyErrorf(span, "'%s' object has no attribute '%s'", o.Class.Name, name)
			return
		}
		// A frozen dataclass's __setattr__ refuses every assignment, to
		// fields and properties alike.
		if dc := o.Class.dcOf(); dc != nil && dc.frozen {
			ev.PyErrorf(span, "cannot assign to field '%s' (FrozenInstanceError: %s is a frozen dataclass)", name, o.Class.Name)
			return
		}
		if d, _ := o.Class.lookup(name); d != nil {
			if p, ok := d.(*descV); ok && p.kind == "property" {
				if p.setter == nil {
					ev.PyErrorf(span, "property '%s' of '%s' object has no setter", name, o.Class.Name)
					return
				}
				ev.callWithSelf(p.setter, o, span, v)
				return
			}
		}
		ev.StoreAttr(o, name, v, span)
	case *ClassV:
		if o.root {
			ev.PyErrorf(span, "cannot set '%s' attribute of immutable type '%s'", name, o.Name)
			return
		}
		if _, ok := o.Attrs[name]; !ok {
			if len(o.Attrs) >= maxClassAttrs || !ev.charge(span, "class attribute", costEntry) {
				return
			}
			o.Order = append(o.Order, name)
		}
		o.Attrs[name] = v
	}
}

// StoreAttr sets an attribute without the frozen check (generated
// __init__, replace).
func (ev *Evaluator) StoreAttr(o *InstanceV, name string, v Value, span source.Span) bool {
	if _, ok := o.Attrs[name]; !ok {
		if len(o.Attrs) >= maxClassAttrs {
			ev.Errorf(span, CodeBudget, "object has more than %d attributes", maxClassAttrs)
			return false
		}
		if !ev.charge(span, "object attribute", costEntry) {
			return false
		}
		o.order = append(o.order, name)
	}
	o.Attrs[name] = v
	return true
}

// CallClass is Cls(...): an enum lookup, a dataclass's generated
// __init__, or a plain class's __init__.
func (ev *Evaluator) CallClass(cls *ClassV, c *Call) Value {
	if cls == objectClass {
		if len(c.Args) > 0 || len(c.Kwargs) > 0 {
			return ev.PyErrorf(c.At, "object() takes no arguments")
		}
		return &InstanceV{Base: Base{c.At}, Class: objectClass, Attrs: map[string]Value{}}
	}
	if cls.root {
		return &OpaqueV{Base{c.At}, cls.Name + "(...)"}
	}
	if cls.enum != enumNone {
		return ev.enumLookup(cls, c)
	}
	for _, a := range c.Args {
		if _, ok := a.(*PoisonV); ok {
			return a
		}
	}
	if !ev.charge(c.At, "object", costBox) {
		return Poison(c.At)
	}
	inst := &InstanceV{Base: Base{c.At}, Class: cls, Attrs: map[string]Value{}}
	// The first class in the MRO with an __init__ of its own, or a
	// dataclass (whose __init__ is generated), initialises the instance.
	for _, k := range cls.mro() {
		if init, ok := k.Attrs["__init__"]; ok {
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
	if len(c.Args) > 0 || len(c.Kwargs) > 0 {
		if cls.excBase {
			return inst
		}
		return ev.PyErrorf(c.At, "%s() takes no arguments", cls.Name)
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
func (ev *Evaluator) callWithArgs(fn, self Value, c *Call) Value {
	n := *c
	n.Args = append([]Value{self}, c.Args...)
	n.ArgSpans = append([]source.Span{c.FnSpan}, c.ArgSpans...)
	return ev.CallValue(fn, &n)
}

// ---- enums ----

// enumRoots are enum.Enum and its library subclasses.
var enumRoots = map[string]enumKind{"Enum": enumPlain, "IntEnum": enumInt, "IntFlag": enumInt, "Flag": enumPlain, "StrEnum": enumStr}

func enumRootClass(name string, span source.Span) *ClassV {
	return &ClassV{Base: Base{span}, Name: name, Attrs: map[string]Value{}, enum: enumRoots[name], root: true}
}

func enumAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	if _, ok := enumRoots[name]; ok {
		return enumRootClass(name, span), true
	}
	switch name {
	case "unique":
		return Builtin("enum.unique", func(ev *Evaluator, c *Call) Value {
			if len(c.Args) != 1 {
				return ev.PyErrorf(c.At, "unique() takes 1 argument")
			}
			return c.Args[0]
		}), true
	}
	return nil, false
}

// makeEnumMembers turns the class's public non-method attributes into
// members: EnumV for an IntEnum (ints in arithmetic, see intEnumOperand),
// else an instance with name and value.
func (ev *Evaluator) makeEnumMembers(cls *ClassV) {
	for _, name := range cls.Order {
		if strings.HasPrefix(name, "_") {
			continue
		}
		v := cls.Attrs[name]
		switch v.(type) {
		case *FuncV, *descV, *BuiltinV, *ClassV:
			continue
		}
		if n, ok := v.(*IntV); ok && cls.enum == enumInt {
			cls.Attrs[name] = &EnumV{Base{v.Span()}, cls.Name, name, n.V}
			continue
		}
		m := &InstanceV{Base: Base{v.Span()}, Class: cls, Attrs: map[string]Value{"name": &StrV{Base{v.Span()}, name}, "value": v, "_name_": &StrV{Base{v.Span()}, name}, "_value_": v}, order: []string{"name", "value"}}
		cls.Attrs[name] = m
	}
}

func enumMembers(cls *ClassV) []Value {
	var out []Value
	for _, name := range cls.Order {
		switch m := cls.Attrs[name].(type) {
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
		if s, ok := m.Attrs["name"].(*StrV); ok {
			return s.V
		}
	}
	return ""
}

func enumValue(m Value) Value {
	switch m := m.(type) {
	case *EnumV:
		return &IntV{m.Base, m.V}
	case *InstanceV:
		return m.Attrs["value"]
	}
	return nil
}

// enumLookup is EnumCls(value): the member with that value.
func (ev *Evaluator) enumLookup(cls *ClassV, c *Call) Value {
	if len(c.Args) != 1 || len(c.Kwargs) > 0 {
		return &OpaqueV{Base{c.At}, cls.Name + "(...)"} // the functional API
	}
	x := c.Args[0]
	if IsErr(x) {
		return x
	}
	for _, m := range enumMembers(cls) {
		if pyIs(m, x) || pyEqual(enumValue(m), x) {
			if e, ok := m.(*EnumV); ok {
				return &EnumV{Base{c.At}, e.Type, e.Name, e.V}
			}
			return m
		}
	}
	return ev.PyErrorf(c.ArgSpans[0], "%s is not a valid %s", Repr(x), cls.Name)
}

// copyInstance is copy.copy / copy.deepcopy of an instance: a new
// instance of the same class with the attributes copied (deep: each
// copied too). Enum members are singletons.
func copyInstance(x *InstanceV, deep bool, span source.Span, memo map[Value]Value) Value {
	if x.Class.enum != enumNone || x.Class == fieldClass {
		return x
	}
	n := &InstanceV{Base: Base{span}, Class: x.Class, Attrs: make(map[string]Value, len(x.Attrs)), order: append([]string(nil), x.order...)}
	memo[x] = n
	for k, v := range x.Attrs {
		if deep {
			v = copyMemo(v, true, span, memo)
		}
		n.Attrs[k] = v
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
		return &IntV{e.Base, e.V}
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
			return pyEq(a.Attrs["value"], s, n)
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
		if !pyEq(a.Attrs[f.name], b.Attrs[f.name], n) {
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
		return hashKeyN(v.Attrs["value"], limit, depth)
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
		k, st := hashKeyN(v.Attrs[f.name], limit-b.Len(), depth+1)
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
			writeRepr(b, v.Attrs["value"], depth+1)
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
				if x, ok := v.Attrs[f.name]; ok {
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
