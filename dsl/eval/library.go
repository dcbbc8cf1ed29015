package eval

import "github.com/tilels/tilels/dsl/source"

// A Library models the modules that are not Python's: the TIRx/TVM library
// (dsl/tirxlib) plugs in here. The interpreter never imports a library
// package; the caller passes one in Options.Library, and an evaluation
// without one treats every library import as opaque (imports nothing).
//
// The Library is an explicit table, not a registry filled at init time: a
// module is modelled exactly when it is listed in Modules, and a library
// value's behaviour comes from the interfaces it implements (AttrValue).
type Library struct {
	modules []LibModule
	index   map[string]*LibModule // by path and alias
}

// NewLibrary makes the Library of the modules listed. Paths and aliases
// are distinct across the table (a repeated one is a bug and panics) and
// from the modules the interpreter models itself (math, functools,
// dataclasses, ...), which take precedence. A Library is immutable and
// safe to share between evaluations.
func NewLibrary(modules []LibModule) *Library {
	l := &Library{modules: modules, index: map[string]*LibModule{}}
	for i := range l.modules {
		m := &l.modules[i]
		for _, p := range append([]string{m.Path}, m.Aliases...) {
			if l.index[p] != nil {
				panic("eval.NewLibrary: module " + p + " listed twice")
			}
			l.index[p] = m
		}
	}
	return l
}

// Modules returns the modelled modules, in table order.
func (l *Library) Modules() []LibModule { return l.modules }

// A LibModule is one modelled library module.
type LibModule struct {
	// Path is the canonical dotted path (e.g.
	// "tvm.backend.cuda.lang.tile_scheduler"); the module's values report
	// it in messages and `import` resolves to it.
	Path string
	// Aliases are other spellings that name the same module (e.g.
	// "tvm.tirx.lang.tile_scheduler").
	Aliases []string
	// Name is the module's own name, as `import a.b.c` binds it ("c").
	Name string
	// Attr returns the module's attribute name, with ok false when the
	// module has no such attribute (the lookup then falls through to an
	// opaque value named Path + "." + name).
	Attr func(ev *Evaluator, name string, span source.Span) (Value, bool)
	// Names lists what `from Path import *` binds; nil binds nothing.
	Names []string
}

// An AttrValue is a library value whose attributes the library models:
// obj.name on it evaluates v.LibAttr(ev, name, span), span being the
// whole attribute expression's. A nil result is a missing attribute: the
// interpreter reports "'<TypeName>' object has no attribute '<name>'"
// (nothing under hasattr or getattr with a default).
type AttrValue interface {
	Value
	LibAttr(ev *Evaluator, name string, span source.Span) Value
}

// libModule returns the library module path names (canonical or alias),
// or nil.
func (ev *Evaluator) libModule(path string) *LibModule {
	if ev.opts.Library == nil {
		return nil
	}
	return ev.opts.Library.index[path]
}
