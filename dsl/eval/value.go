package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// Value is one statically evaluated Python value. Every value carries the
// span of the expression that produced it (Span). Values are immutable
// except *ListV and *DictV, which have Python's aliasing semantics.
type Value interface {
	Span() source.Span
	// TypeName is the Python-ish type name used in messages ("int",
	// "str", "Buffer", "BufferRegion", "PrimExpr", ...).
	TypeName() string
}

type Base struct{ At source.Span }

func (b Base) Span() source.Span { return b.At }

// Python scalars and containers.
type (
	// IntV is a Python int (int64; overflow is an evaluation error).
	IntV struct {
		Base
		V int64
	}
	// FloatV is a Python float.
	FloatV struct {
		Base
		V float64
	}
	// BoolV is a Python bool.
	BoolV struct {
		Base
		V bool
	}
	// NoneV is Python None.
	NoneV struct{ Base }
	// StrV is a Python str.
	StrV struct {
		Base
		V string
	}
	// TupleV is a Python tuple.
	TupleV struct {
		Base
		Elts []Value
	}
	// ListV is a Python list (mutable, shared by reference).
	ListV struct {
		Base
		Elts []Value
	}
	// DictV is a Python dict with insertion order (mutable, shared by reference).
	DictV struct {
		Base
		Keys, Vals []Value
		index      map[string]int
	}
	// SliceV is a slice object lo:hi:step; absent parts are *NoneV.
	SliceV struct {
		Base
		Lo, Hi, Step Value
	}
	// RangeV is a Python range.
	RangeV struct {
		Base
		Start, Stop, Step int64
	}
)

// Functions, modules and unknowns.
type (
	// FuncV is a user function (def or lambda) with its closure.
	FuncV struct {
		Base
		Name     string // qualified: "outer.inner" for nested defs
		Def      *syntax.FunctionDef
		Lambda   *syntax.Lambda
		Params   *syntax.Params
		Defaults map[*syntax.Param]Value
		Env      *scope
		// TIR marks @T.inline / @T.macro helpers: their bodies are parsed
		// like kernel bodies (range() is a device loop, if on a device value
		// is an ir.If).
		TIR bool
	}
	// BuiltinV is a function implemented in Go (Python builtins, T.*, layout
	// constructors, bound methods).
	BuiltinV struct {
		Base
		Name string
		Fn   func(ev *Evaluator, c *Call) Value
	}
	// ModuleV is a resolved, modelled module or namespace (T, Tx, layout, ...).
	ModuleV struct {
		Base
		Path string // canonical path, e.g. "tvm.script.tirx"
		Name string // display name, e.g. "T"
		Attr func(ev *Evaluator, name string, span source.Span) (Value, bool)
		// call makes the namespace callable (SwizzleMode(3)).
		Call func(ev *Evaluator, c *Call) Value
		// closed namespaces report unknown attributes as errors instead
		// of yielding opaque values.
		Closed bool
		// names lists the public names for `from m import *`.
		names []string
	}
	// OpaqueV is a value tilels does not model: anything reached from an
	// unresolved import, an unknown class, or an unmodelled library call.
	// It propagates through attributes, calls and arithmetic; a use that
	// needs a concrete value reports eval/unresolved.
	OpaqueV struct {
		Base
		Path string // what it is, e.g. "numpy.float16" or "torch.randn(...)"
	}
	// PoisonV stands for the result of an expression whose error has
	// already been reported; it silently suppresses cascading errors.
	PoisonV struct{ Base }
	// UnboundV is the value of a factory parameter with neither default
	// nor binding. Using it concretely inside a kernel makes the kernel
	// partial and is reported once, at the parameter, as eval/unbound.
	UnboundV struct {
		Base
		Origin *unboundOrigin
	}
	// MarkerV is a DSL object with no value semantics of its own
	// (T.prim_func, T.handle, T.let, T.inline, ...).
	MarkerV struct {
		Base
		Name string
		Arg  Value // T.let[T.int32] / T.prim_func(...) argument, or nil
	}
)

// unboundOrigin identifies one parameter without value.
type unboundOrigin struct {
	Func, Param string
	Span        source.Span
	// Given is the value, not modelled by tilels, that a call passed
	// for the parameter ("" when none did): reportUnbound names it.
	Given    string
	reported bool
}

// DSL values.
type (
	// DTypeV is a dtype: a T.float32-style constructor (Ctor) or a
	// tvm.DataType value.
	DTypeV struct {
		Base
		DT   ir.DataType
		Ctor bool
	}
	// LayoutV is a layout (TileLayout or ComposeLayout).
	LayoutV struct {
		Base
		L layout.Layout
		// Bare marks a PRE SwizzleLayout(...) value (a ComposeLayout over a
		// trivial tile) so ComposeLayout(swizzle, tile) can re-wrap it.
		Bare bool
	}
	// SpecV is a S[...] / R[...] spec or a "+" combination of them.
	SpecV struct {
		Base
		S layout.Spec
	}
	// SpecBuilderV is the S or R object itself.
	SpecBuilderV struct {
		Base
		Replica bool
	}
	// AxisV is a layout axis (laneid, warpid, "m", ...).
	AxisV struct {
		Base
		A *layout.Axis
	}
	// OnAxisV is value@axis.
	OnAxisV struct {
		Base
		V int64
		A *layout.Axis
	}
	// OffsetV is a sum of value@axis terms.
	OffsetV struct {
		Base
		M map[*layout.Axis]int64
	}
	// IterV is a layout Iter(extent, stride, axis).
	IterV struct {
		Base
		It layout.Iter
	}
	// EnumV is an enum member such as SwizzleMode.SWIZZLE_128B_ATOM.
	EnumV struct {
		Base
		Type, Name string
		V          int64
	}
	// BufferV is a buffer.
	BufferV struct {
		Base
		B *ir.Buffer
	}
	// RegionV is a buffer region (BufferRegion).
	RegionV struct {
		Base
		R *ir.Region
	}
	// ExprV is a device expression (PrimExpr): scope ids, loop variables,
	// loads, intrinsic calls and arithmetic over them.
	ExprV struct {
		Base
		E ir.Expr
		// inline marks a T.meta_var(...) result and fresh marks a new
		// variable (a scope id, T.Bind's var): assigning either to a name
		// in a kernel body names it instead of declaring a scalar.
		Inline, Fresh bool
		// scalar marks the element 0 load of a T.alloc_scalar /
		// T.decl_scalar buffer (TVM's scalar_wrapper, tir_scalar.go):
		// a name bound to it is that element, and `x = v` stores v there.
		Scalar bool
	}
	// TxNSV is the Tx namespace (Scope "") or one of its scope namespaces
	// (Tx.warp: Scope "warp", Label "warp").
	TxNSV struct {
		Base
		Scope, Label string
	}
	// TxOpV is a tile primitive bound to a scope (Tx.warp.copy).
	TxOpV struct {
		Base
		Op, Scope string
		NameSpan  source.Span
	}
	// IntrinsicV is a T.ptx.* / T.cuda.* intrinsic path.
	IntrinsicV struct {
		Base
		Path string // "ptx.mbarrier.init"
	}
	// KernelV is an evaluated @T.prim_func.
	KernelV struct {
		Base
		K *Kernel
	}
	// PoolV is a T.SMEMPool() bump allocator over a shared.dyn arena
	// (tvm/backend/cuda/lang/alloc_pool.py).
	PoolV struct {
		Base
		Arena          *ir.Buffer
		Offset, MaxOff int64
		// owner is the kernel that made the pool: only its body may
		// allocate from it (the arena's shape grows), so a kernel's IR
		// never changes once its evaluation ends (Options.OnKernel).
		Owner *KernelState
	}
	// LoopV is a device loop iterator: T.serial / T.unroll / T.vectorized /
	// T.grid, or range() over a device value.
	LoopV struct {
		Base
		What          string // "T.serial", "range", ...
		Kind          ir.ForKind
		Mins, Extents []ir.Expr
		// Step is the constant step of a one-dimensional range(start,
		// stop, step) loop; 0 and 1 mean a unit step. With another step
		// the ir.For runs its variable k over [0, Extents[0]) and the
		// Python name is bound to Mins[0] + k*Step, the values TVM's
		// T.serial(start, stop, step=step) gives the loop variable.
		Step int64
		// Unroll is the ir.For's unroll pragma (ir.For.Unroll).
		Unroll int64
		// Thread is the launch index a T.thread_binding loop binds
		// ("blockIdx.x", "threadIdx.x"); its loop is that index
		// (deviceLoop: an ir.ScopeID), not an ir.For.
		Thread string
	}
	// AnnotV is a type annotation value: T.float32[8] (Kind "local": a
	// register array) or T.Buffer((32, 32), "float32") (Kind "buffer").
	AnnotV struct {
		Base
		Kind   string
		DT     ir.DataType
		Shape  Value
		Scope  string
		Layout Value
	}
)

func (*IntV) TypeName() string         { return "int" }
func (*FloatV) TypeName() string       { return "float" }
func (*BoolV) TypeName() string        { return "bool" }
func (*NoneV) TypeName() string        { return "NoneType" }
func (*StrV) TypeName() string         { return "str" }
func (*TupleV) TypeName() string       { return "tuple" }
func (*ListV) TypeName() string        { return "list" }
func (*DictV) TypeName() string        { return "dict" }
func (*SliceV) TypeName() string       { return "slice" }
func (*RangeV) TypeName() string       { return "range" }
func (*FuncV) TypeName() string        { return "function" }
func (*BuiltinV) TypeName() string     { return "builtin_function" }
func (*ModuleV) TypeName() string      { return "module" }
func (v *OpaqueV) TypeName() string    { return v.Path }
func (*PoisonV) TypeName() string      { return "<error>" }
func (*UnboundV) TypeName() string     { return "<unbound>" }
func (v *MarkerV) TypeName() string    { return v.Name }
func (*DTypeV) TypeName() string       { return "DataType" }
func (v *LayoutV) TypeName() string    { return layoutTypeName(v.L) }
func (*SpecV) TypeName() string        { return "_LayoutSpec" }
func (*SpecBuilderV) TypeName() string { return "_SpecBuilder" }
func (*AxisV) TypeName() string        { return "Axis" }
func (*OnAxisV) TypeName() string      { return "_OnAxis" }
func (*OffsetV) TypeName() string      { return "_OffsetExpr" }
func (*IterV) TypeName() string        { return "Iter" }
func (v *EnumV) TypeName() string      { return v.Type }
func (*BufferV) TypeName() string      { return "Buffer" }
func (*RegionV) TypeName() string      { return "BufferRegion" }
func (*ExprV) TypeName() string        { return "PrimExpr" }
func (*TxNSV) TypeName() string        { return "ScopeNamespace" }
func (*TxOpV) TypeName() string        { return "ScopedOp" }
func (*IntrinsicV) TypeName() string   { return "Op" }
func (*KernelV) TypeName() string      { return "PrimFunc" }
func (*LoopV) TypeName() string        { return "ForFrame" }
func (*PoolV) TypeName() string        { return "SMEMPool" }
func (*AnnotV) TypeName() string       { return "annotation" }

func layoutTypeName(l layout.Layout) string {
	if _, ok := l.(*layout.ComposeLayout); ok {
		return "ComposeLayout"
	}
	return "TileLayout"
}

// Exported constructors, for Options.Bindings and tests.

// Int returns a Python int value.
func Int(v int64) Value { return &IntV{Base{source.NoSpan}, v} }

// Float returns a Python float value.
func Float(v float64) Value { return &FloatV{Base{source.NoSpan}, v} }

// Bool returns a Python bool value.
func Bool(v bool) Value { return &BoolV{Base{source.NoSpan}, v} }

// Str returns a Python str value.
func Str(v string) Value { return &StrV{Base{source.NoSpan}, v} }

// None returns Python None.
func None() Value { return &NoneV{Base{source.NoSpan}} }

// Tuple returns a Python tuple of elts.
func Tuple(elts ...Value) Value { return &TupleV{Base{source.NoSpan}, elts} }

// List returns a Python list of elts.
func List(elts ...Value) Value { return &ListV{Base{source.NoSpan}, elts} }

// errIn returns the first poison, unbound or opaque value in v or, for a
// tuple, list or slice, in its elements (recursively); nil when there is
// none. A container met again below the first levels (a list that
// contains itself, tuples that share their elements) is looked at once.
func errIn(v Value) Value {
	var seen map[Value]bool
	return errInSeen(v, 0, &seen)
}

func errInSeen(v Value, depth int, seen *map[Value]bool) Value {
	if IsErr(v) {
		return v
	}
	var elts []Value
	switch t := v.(type) {
	case *TupleV:
		elts = t.Elts
	case *ListV:
		elts = t.Elts
	case *SliceV:
		elts = []Value{t.Lo, t.Hi, t.Step}
	default:
		return nil
	}
	if depth >= 4 {
		if *seen == nil {
			*seen = map[Value]bool{}
		}
		if (*seen)[v] {
			return nil
		}
		(*seen)[v] = true
	}
	for _, e := range elts {
		if x := errInSeen(e, depth+1, seen); x != nil {
			return x
		}
	}
	return nil
}

// IsErr reports whether v is a value that silently absorbs operations
// (poison, unbound, opaque).
func IsErr(v Value) bool {
	switch v.(type) {
	case *PoisonV, *UnboundV, *OpaqueV:
		return true
	}
	return false
}

// maxReprBytes bounds the text Repr returns (for messages and case
// labels): containers that share elements can have a repr exponentially
// longer than the memory they take.
const maxReprBytes = 64 << 10

// Repr returns Python's repr of v (approximately, for non-Python values),
// cut after about 64 KiB with "...".
func Repr(v Value) string {
	s, whole := reprN(v, maxReprBytes)
	if !whole {
		s += "..."
	}
	return s
}

// reprN returns the repr of v and true, or, when it is longer than limit
// bytes, a prefix of at most limit bytes and false. Its work is bounded
// by limit too.
func reprN(v Value, limit int64) (string, bool) {
	b := reprBuilder{limit: limit}
	writeRepr(&b, v, 0)
	if b.over {
		return b.String()[:min(int64(b.Len()), limit)], false
	}
	return b.String(), true
}

// reprBuilder is a strings.Builder that stops growing (and says so)
// once it holds more than limit bytes.
type reprBuilder struct {
	strings.Builder
	limit int64
	over  bool
}

func (b *reprBuilder) full() bool {
	if !b.over && int64(b.Len()) > b.limit {
		b.over = true
	}
	return b.over
}

func (b *reprBuilder) WriteString(s string) {
	if b.full() {
		return
	}
	if int64(b.Len()+len(s)) > b.limit {
		s = s[:b.limit-int64(b.Len())+1]
	}
	b.Builder.WriteString(s)
}

func (b *reprBuilder) WriteByte(c byte) error {
	if !b.full() {
		b.Builder.WriteByte(c)
	}
	return nil
}

func writeRepr(b *reprBuilder, v Value, depth int) {
	if b.full() {
		return
	}
	if depth > 8 {
		b.WriteString("...")
		return
	}
	switch v := v.(type) {
	case *IntV:
		b.WriteString(strconv.FormatInt(v.V, 10))
	case *FloatV:
		b.WriteString(pyFloat(v.V))
	case *BoolV:
		if v.V {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case *NoneV:
		b.WriteString("None")
	case *StrV:
		s := v.V
		if rest := b.limit - int64(b.Len()); int64(len(s)) > rest {
			s = s[:rest+1] // the repr is cut anyway: quote no more than fits
		}
		b.WriteString(PyQuote(s))
	case *TupleV:
		b.WriteByte('(')
		for i, e := range v.Elts {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e, depth+1)
		}
		if len(v.Elts) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	case *ListV:
		b.WriteByte('[')
		for i, e := range v.Elts {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e, depth+1)
		}
		b.WriteByte(']')
	case *DictV:
		b.WriteByte('{')
		for i := range v.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, v.Keys[i], depth+1)
			b.WriteString(": ")
			writeRepr(b, v.Vals[i], depth+1)
		}
		b.WriteByte('}')
	case *SliceV:
		b.WriteString("slice(")
		writeRepr(b, v.Lo, depth+1)
		b.WriteString(", ")
		writeRepr(b, v.Hi, depth+1)
		b.WriteString(", ")
		writeRepr(b, v.Step, depth+1)
		b.WriteByte(')')
	case *RangeV:
		if v.Step == 1 {
			fmt.Fprintf(b, "range(%d, %d)", v.Start, v.Stop)
		} else {
			fmt.Fprintf(b, "range(%d, %d, %d)", v.Start, v.Stop, v.Step)
		}
	case *FuncV:
		fmt.Fprintf(b, "<function %s>", v.Name)
	case *BuiltinV:
		fmt.Fprintf(b, "<built-in function %s>", v.Name)
	case *ModuleV:
		fmt.Fprintf(b, "<module %s>", v.Path)
	case *OpaqueV:
		b.WriteString(v.Path)
	case *PoisonV:
		b.WriteString("<error>")
	case *UnboundV:
		fmt.Fprintf(b, "<unbound %s>", v.Origin.Param)
	case *MarkerV:
		b.WriteString(v.Name)
	case *DTypeV:
		b.WriteString(v.DT.String())
	case *LayoutV:
		b.WriteString(v.L.String())
	case *SpecV:
		b.WriteString(v.S.Layout().String())
	case *SpecBuilderV:
		if v.Replica {
			b.WriteString("R")
		} else {
			b.WriteString("S")
		}
	case *AxisV:
		b.WriteString(v.A.Name)
	case *OnAxisV:
		fmt.Fprintf(b, "%d@%s", v.V, v.A.Name)
	case *OffsetV:
		b.WriteString(layout.NewTile(nil, nil, v.M).String())
	case *IterV:
		fmt.Fprintf(b, "Iter(%s)", v.It.String())
	case *EnumV:
		fmt.Fprintf(b, "%s.%s", v.Type, v.Name)
	case *BufferV:
		b.WriteString(v.B.Name)
	case *RegionV:
		b.WriteString(RegionString(v.R))
	case *ExprV:
		b.WriteString(ExprString(v.E))
	case *TxNSV:
		if v.Label == "" {
			b.WriteString("Tx")
		} else {
			b.WriteString("Tx." + v.Label)
		}
	case *TxOpV:
		b.WriteString("Tx." + v.Scope + "." + v.Op)
	case *IntrinsicV:
		b.WriteString("T." + v.Path)
	case *KernelV:
		b.WriteString("<PrimFunc " + v.K.Func.Name + ">")
	case *JitV:
		b.WriteString("<JITFunc " + v.Def.Name.Id + ">")
	case *ParamSetV:
		b.WriteString("ParameterSet(")
		for i, e := range v.Values {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e, depth+1)
		}
		b.WriteByte(')')
	case *LoopV:
		b.WriteString(v.What + "(...)")
	case *AnnotV:
		b.WriteString(v.DT.String() + "[...]")
	case *ClassV, *InstanceV, *descV:
		writeClassRepr(b, v, depth) // class.go
	default:
		fmt.Fprintf(b, "%T", v)
	}
}

// pyStr is Python's str(v).
func pyStr(v Value) string {
	switch v := v.(type) {
	case *StrV:
		return v.V
	case *DTypeV:
		return v.DT.String()
	}
	return Repr(v)
}

func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.ContainsAny(s, "e") {
		// Python writes 1e+20 as 1e+20 and 1e-05 as 1e-05.
		if i := strings.IndexByte(s, 'e'); i >= 0 && len(s) > i+2 && (s[i+1] == '-' || s[i+1] == '+') && len(s)-(i+2) == 1 {
			s = s[:i+2] + "0" + s[i+2:]
		}
		return s
	}
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

func PyQuote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Tuple keys are bounded: a tuple that shares its elements can have a key
// exponentially longer than the memory it takes ((t, t) nested 40 deep),
// so a tuple nested deeper than maxKeyDepth or whose key would pass
// maxKeyBytes counts as unhashable.
const (
	maxKeyBytes = 1 << 20
	maxKeyDepth = 100
)

// hashKey returns a key identifying a hashable Python value, with Python's
// equalities (1 == 1.0 == True).
func hashKey(v Value) (string, bool) {
	k, st := hashKeyN(v, maxKeyBytes, 0)
	return k, st == keyOK
}

// keyStatus says whether a value has a hash key.
type keyStatus uint8

const (
	keyOK keyStatus = iota
	keyUnhashable
	keyTooLarge // a tuple past maxKeyBytes or maxKeyDepth
)

func hashKeyN(v Value, limit, depth int) (string, keyStatus) {
	switch v := v.(type) {
	case *IntV:
		return "n" + strconv.FormatInt(v.V, 10), keyOK
	case *BoolV:
		if v.V {
			return "n1", keyOK
		}
		return "n0", keyOK
	case *FloatV:
		if v.V == math.Trunc(v.V) && math.Abs(v.V) < 1e18 {
			return "n" + strconv.FormatInt(int64(v.V), 10), keyOK
		}
		return "f" + strconv.FormatFloat(v.V, 'g', -1, 64), keyOK
	case *StrV:
		if depth > 0 && len(v.V) >= limit {
			return "", keyTooLarge // an element of a tuple key too long
		}
		return "s" + v.V, keyOK
	case *NoneV:
		return "N", keyOK
	case *TupleV:
		if depth >= maxKeyDepth {
			return "", keyTooLarge
		}
		var b strings.Builder
		b.WriteString("t(")
		for _, e := range v.Elts {
			k, st := hashKeyN(e, limit-b.Len(), depth+1)
			if st != keyOK {
				return "", st
			}
			if b.Len()+len(k) > limit {
				return "", keyTooLarge
			}
			b.WriteString(strconv.Itoa(len(k)))
			b.WriteByte(':')
			b.WriteString(k)
		}
		b.WriteByte(')')
		return b.String(), keyOK
	case *EnumV:
		return "e" + v.Type + "." + v.Name, keyOK
	case *DTypeV:
		return "d" + v.DT.String(), keyOK
	case *AxisV:
		return "a" + v.A.Name, keyOK
	case *BufferV:
		return fmt.Sprintf("b%p", v.B), keyOK
	case *FuncV:
		return fmt.Sprintf("F%p", v), keyOK
	case *ClassV:
		return fmt.Sprintf("C%p", v), keyOK
	case *InstanceV:
		return instanceKey(v, limit, depth) // class.go
	case *BuiltinV:
		return "B" + v.Name, keyOK
	case *TxOpV:
		return "x" + v.Scope + "." + v.Op, keyOK
	case *ExprV:
		if vr, ok := v.E.(*ir.Var); ok {
			return fmt.Sprintf("v%p", vr), keyOK
		}
	}
	return "", keyUnhashable
}

func NewDict(span source.Span) *DictV { return &DictV{Base: Base{span}, index: map[string]int{}} }

func (d *DictV) get(k Value) (Value, bool, bool) {
	key, ok := hashKey(k)
	if !ok {
		return nil, false, false
	}
	if i, ok := d.index[key]; ok {
		return d.Vals[i], true, true
	}
	return nil, false, true
}

// Set stores k: v without charging the value budget (for entries of
// bounded size; the evaluator's own paths use evaluator.setEntry).
func (d *DictV) Set(k, v Value) bool {
	key, ok := hashKey(k)
	if !ok {
		return false
	}
	d.setKey(key, k, v)
	return true
}

// setKey stores k: v under k's hash key.
func (d *DictV) setKey(key string, k, v Value) {
	if d.index == nil {
		d.index = map[string]int{}
	}
	if i, ok := d.index[key]; ok {
		d.Vals[i] = v
		return
	}
	d.index[key] = len(d.Keys)
	d.Keys = append(d.Keys, k)
	d.Vals = append(d.Vals, v)
}

func (d *DictV) del(k Value) bool {
	key, ok := hashKey(k)
	if !ok {
		return false
	}
	i, ok := d.index[key]
	if !ok {
		return false
	}
	d.Keys = append(d.Keys[:i:i], d.Keys[i+1:]...)
	d.Vals = append(d.Vals[:i:i], d.Vals[i+1:]...)
	d.index = map[string]int{}
	for j, k := range d.Keys {
		kk, _ := hashKey(k)
		d.index[kk] = j
	}
	return true
}

// IsNoneV reports whether v is Python's None.
func IsNoneV(v Value) bool {
	_, ok := v.(*NoneV)
	return ok
}
