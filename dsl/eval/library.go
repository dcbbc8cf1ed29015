package eval

import (
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

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
	hooks   Hooks
}

// NewLibrary makes the Library of the modules listed. Paths and aliases
// are distinct across the table (a repeated one is a bug and panics) and
// from the modules the interpreter models itself (math, functools,
// dataclasses, ...), which take precedence. A Library is immutable and
// safe to share between evaluations.
func NewLibrary(modules []LibModule, hooks Hooks) *Library {
	l := &Library{modules: modules, index: map[string]*LibModule{}, hooks: hooks}
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
	// Match, if set, recognizes further spellings by pattern (e.g. any
	// tvm.*.tile_primitive.tma_utils); it is asked after every exact
	// path and alias of the table, in table order.
	Match func(path string) bool
}

// Hooks are the library's entry points from the kernel semantics eval
// keeps (kernel.go's buffers and views, the tile-call syntax of call.go
// and drive.go, the older dialect's T names, the layout values of
// value.go, T.SMEMPool's PoolV): where one of those meets a model of the
// library, eval calls the hook. A nil hook, or a nil Library, is "not
// modelled": the value is opaque (nil for the attribute hooks, false for
// the ok results).
type Hooks struct {
	// BufferAttr resolves the Buffer attributes the library models
	// (sub, permute and the rearranging views), nil for others.
	BufferAttr func(ev *Evaluator, buf *ir.Buffer, name string, span source.Span) Value
	// EmitView records a buffer view nb that a view call declared.
	EmitView func(ev *Evaluator, nb *ir.Buffer)
	// BufferViewDtypeLaidOut is buf.view(dtype) of a buffer with a
	// non-trivial layout.
	BufferViewDtypeLaidOut func(ev *Evaluator, buf *ir.Buffer, c *Call, dt ir.DataType) Value
	// LayoutAttr resolves the attributes of layout values (LayoutV, AxisV,
	// IterV, SpecV), nil for a missing one.
	LayoutAttr func(ev *Evaluator, obj Value, name string, span source.Span) Value
	// LayoutBinop evaluates the layout mini-language's operators
	// (`4 @ laneid`, spec + spec + offset); ok false when x op y is not
	// one.
	LayoutBinop func(ev *Evaluator, op string, x, y Value, span source.Span) (Value, bool)
	// IsTileOp reports whether name is a tile primitive of Tx (the module
	// TxPath); TxScope is the execution scope a Tx.<name> namespace (Tx.cta,
	// Tx.warp, ...) stands for.
	IsTileOp func(name string) bool
	TxScope  func(name string) (string, bool)
	// TxAttr resolves an attribute of a Tx scope namespace (Tx.warp.copy).
	TxAttr func(ev *Evaluator, ns *TxNSV, name string, nameSpan, span source.Span, quiet bool) Value
	// TileCall evaluates a call of a tile primitive: an ir.TileCall in the
	// kernel being built.
	TileCall func(ev *Evaluator, f *TxOpV, c *Call) Value
	// PoolAttr resolves the attributes of a T.SMEMPool (alloc, ...).
	PoolAttr func(ev *Evaluator, p *PoolV, name string, span source.Span) Value
	// TBuiltin is the T.<name> function the T module models as a builtin
	// (T.alloc_buffer, T.SMEMPool, ...), for the older dialect's names;
	// MathCall is T.<name> of the scalar math functions (op from MathOps);
	// ScopeID is T.<kind-name>(...) of a scope id; DeclBuffer is
	// T.decl_buffer(...) (also T.Buffer(..., data=) in a body).
	TBuiltin   func(name string) (func(ev *Evaluator, c *Call) Value, bool)
	MathCall   func(ev *Evaluator, name string, op ir.BinOp, c *Call) Value
	ScopeID    func(ev *Evaluator, kind ir.ScopeIDKind, c *Call) Value
	DeclBuffer func(ev *Evaluator, c *Call) Value
	// SpecSubscript is b[idx] of a layout spec builder.
	SpecSubscript func(ev *Evaluator, b *SpecBuilderV, e *syntax.Subscript, idx []Value, isTuple bool) Value
	// StrippedIntrinsic evaluates T.<path>(...) when it is an intrinsic a
	// regular compilation strips (the T.cuda.iket annotations): ok false
	// for any other.
	StrippedIntrinsic func(ev *Evaluator, path string, c *Call) (Value, bool)
	// TrainiumLayout is the layout= string of a buffer in a trn.* scope
	// ("PF": TileLayout.trainium); msg is the reference's assertion text
	// when it raises.
	TrainiumLayout func(annotation string, shape []int64, psum bool) (l *layout.TileLayout, msg string)
}

// A SubscriptValue is a library value that can be subscripted:
// v[idx] evaluates v.LibIndex(ev, idx, e), idx holding the evaluated
// indices (one per element of a tuple subscript).
type SubscriptValue interface {
	Value
	LibIndex(ev *Evaluator, idx []Value, e *syntax.Subscript) Value
}

// A StoreValue is a library value whose elements can be assigned:
// v[idx] = x evaluates v.LibSetIndex(ev, idx, x, vspan, e).
type StoreValue interface {
	Value
	LibSetIndex(ev *Evaluator, idx []Value, v Value, vspan source.Span, e *syntax.Subscript)
}

// hooks returns the library's hooks (zero ones without a library).
func (ev *Evaluator) hooks() *Hooks {
	if ev.Opts.Library == nil {
		return &noHooks
	}
	return &ev.Opts.Library.hooks
}

var noHooks Hooks

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
	if ev.Opts.Library == nil {
		return nil
	}
	l := ev.Opts.Library
	if m := l.index[path]; m != nil {
		return m
	}
	for i := range l.modules {
		if m := &l.modules[i]; m.Match != nil && m.Match(path) {
			return m
		}
	}
	return nil
}

// The hooks as the kernel semantics call them: each is "not modelled"
// without a library (see Hooks).

func (ev *Evaluator) libBufferAttr(buf *ir.Buffer, name string, span source.Span) Value {
	if h := ev.hooks().BufferAttr; h != nil {
		return h(ev, buf, name, span)
	}
	return nil
}

func (ev *Evaluator) libEmitView(nb *ir.Buffer) {
	if h := ev.hooks().EmitView; h != nil {
		h(ev, nb)
	}
}

func (ev *Evaluator) libBufferViewDtypeLaidOut(buf *ir.Buffer, c *Call, dt ir.DataType) Value {
	if h := ev.hooks().BufferViewDtypeLaidOut; h != nil {
		return h(ev, buf, c, dt)
	}
	return &OpaqueV{Base{c.At}, "Buffer.view(dtype) of a laid-out buffer"}
}

func (ev *Evaluator) libLayoutAttr(obj Value, name string, span source.Span) Value {
	if h := ev.hooks().LayoutAttr; h != nil {
		return h(ev, obj, name, span)
	}
	return nil
}

func (ev *Evaluator) libLayoutBinop(op string, x, y Value, span source.Span) (Value, bool) {
	if h := ev.hooks().LayoutBinop; h != nil {
		return h(ev, op, x, y, span)
	}
	return nil, false
}

func (ev *Evaluator) libSpecSubscript(b *SpecBuilderV, e *syntax.Subscript, idx []Value, isTuple bool) Value {
	if h := ev.hooks().SpecSubscript; h != nil {
		return h(ev, b, e, idx, isTuple)
	}
	return &OpaqueV{Base{e.Span()}, "layout spec subscript"}
}

func (ev *Evaluator) libIsTileOp(name string) bool {
	if h := ev.hooks().IsTileOp; h != nil {
		return h(name)
	}
	return false
}

func (ev *Evaluator) libTxScope(name string) (string, bool) {
	if h := ev.hooks().TxScope; h != nil {
		return h(name)
	}
	return "", false
}

func (ev *Evaluator) libTxAttr(ns *TxNSV, name string, nameSpan, span source.Span, quiet bool) Value {
	if h := ev.hooks().TxAttr; h != nil {
		return h(ev, ns, name, nameSpan, span, quiet)
	}
	return nil
}

func (ev *Evaluator) libTileCall(f *TxOpV, c *Call) Value {
	if h := ev.hooks().TileCall; h != nil {
		return h(ev, f, c)
	}
	return &OpaqueV{Base{c.At}, "a tile primitive call"}
}

func (ev *Evaluator) libPoolAttr(p *PoolV, name string, span source.Span) Value {
	if h := ev.hooks().PoolAttr; h != nil {
		return h(ev, p, name, span)
	}
	return nil
}

// libTBuiltin is the T builtin name as a function, ok false when the T
// module has none.
func (ev *Evaluator) libTBuiltin(name string) (func(ev *Evaluator, c *Call) Value, bool) {
	if h := ev.hooks().TBuiltin; h != nil {
		return h(name)
	}
	return nil, false
}

func (ev *Evaluator) libMathCall(name string, op ir.BinOp, c *Call) Value {
	if h := ev.hooks().MathCall; h != nil {
		return h(ev, name, op, c)
	}
	return &OpaqueV{Base{c.At}, "T." + name + "(...)"}
}

func (ev *Evaluator) libScopeID(kind ir.ScopeIDKind, c *Call) Value {
	if h := ev.hooks().ScopeID; h != nil {
		return h(ev, kind, c)
	}
	return &OpaqueV{Base{c.At}, "a scope id"}
}

func (ev *Evaluator) libDeclBuffer(c *Call) Value {
	if h := ev.hooks().DeclBuffer; h != nil {
		return h(ev, c)
	}
	return &OpaqueV{Base{c.At}, "T.decl_buffer(...)"}
}
