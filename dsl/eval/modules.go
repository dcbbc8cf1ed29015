package eval

import (
	"math"
	"regexp"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// Canonical paths of the modelled modules. Imports are resolved by what
// they name, so the virtual and aliased spellings the corpus uses
// (tvm.script.tirx = tvm.tirx.script; tvm.tirx.cuda.* = tvm.backend.cuda.*,
// with or without the operator/ level) reach the same namespace.
const (
	TPath      = "tvm.script.tirx"
	TxPath     = "tvm.script.tirx.tile"
	LayoutPath = "tvm.tirx.layout"
	TmaPath    = "tvm.backend.cuda.tile_primitive.tma_utils"
	// gemmAsyncPath is the gemm_async variant module, whose layout helper
	// sf_tmem_layout kernels import.
	gemmAsyncPath = "tvm.backend.cuda.tile_primitive.gemm_async"
)

// canonicalModule maps a dotted module path to the canonical path of a
// modelled module, or "".
func (ev *Evaluator) canonicalModule(path string) string {
	switch path {
	case "numpy", "copy", "math", "functools", "itertools", "operator", "pytest", "pytest.mark", "dataclasses", "enum":
		return path
	case "os": // bind_environ.go
		return path
	case "random": // bind_random.go
		return path
	}
	if m := ev.libModule(path); m != nil { // library.go
		return m.Path
	}
	return ""
}

// ResolvePath returns the modelled module at path, or an opaque value.
func (ev *Evaluator) ResolvePath(path string, span source.Span) Value {
	if m := ev.Module(path, span); m != nil {
		return m
	}
	return &OpaqueV{Base{span}, path}
}

// Module returns the modelled module at path, or nil.
func (ev *Evaluator) Module(path string, span source.Span) *ModuleV {
	canon := ev.canonicalModule(path)
	switch canon {
	case "math":
		return &ModuleV{Base: Base{span}, Path: "math", Name: "math", Attr: mathAttr, names: []string{"gcd", "lcm", "ceil", "floor", "log2", "sqrt", "prod", "inf", "pi", "isfinite", "isinf", "isnan"}}
	case "functools":
		return &ModuleV{Base: Base{span}, Path: "functools", Name: "functools", Attr: functoolsAttr}
	case "numpy":
		// Only what kernels compute shapes with on static values.
		return &ModuleV{Base: Base{span}, Path: "numpy", Name: "numpy", Attr: numpyAttr}
	case "copy":
		return &ModuleV{Base: Base{span}, Path: "copy", Name: "copy", Attr: copyAttr, names: []string{"copy", "deepcopy"}}
	case "itertools":
		return &ModuleV{Base: Base{span}, Path: "itertools", Name: "itertools", Attr: itertoolsAttr}
	case "operator":
		return &ModuleV{Base: Base{span}, Path: "operator", Name: "operator", Attr: operatorAttr}
	case "pytest":
		return &ModuleV{Base: Base{span}, Path: "pytest", Name: "pytest", Attr: pytestAttr}
	case "pytest.mark":
		return &ModuleV{Base: Base{span}, Path: "pytest.mark", Name: "mark", Attr: pytestMarkAttr}
	case "os": // bind_environ.go
		return &ModuleV{Base: Base{span}, Path: "os", Name: "os", Attr: osAttr}
	case "random": // bind_random.go
		return &ModuleV{Base: Base{span}, Path: "random", Name: "random", Attr: randomAttr}
	case "dataclasses": // lib_dataclasses.go
		return &ModuleV{Base: Base{span}, Path: "dataclasses", Name: "dataclasses", Attr: dataclassesAttr}
	case "enum": // class.go
		return &ModuleV{Base: Base{span}, Path: "enum", Name: "enum", Attr: enumAttr}
	}
	if m := ev.libModule(canon); m != nil { // library.go
		return &ModuleV{Base: Base{span}, Path: m.Path, Name: m.Name, Attr: m.Attr, names: m.Names}
	}
	return nil
}

func (ev *Evaluator) execImport(fr *frame, s *syntax.Import) {
	for _, a := range s.Names {
		ev.checkSurfaceModule(a.Name, a.Loc) // release_surface.go
		if ev.canonicalModule(a.Name) == "" && ev.importsEnabled() {
			if v, ok := ev.wsImportName(fr, a); ok { // imports.go
				name, _, _ := strings.Cut(a.Name, ".")
				if a.AsName != nil {
					name = a.AsName.Id
				}
				fr.env.set(name, v)
				continue
			}
		}
		if a.AsName != nil {
			fr.env.set(a.AsName.Id, ev.ResolvePath(a.Name, a.Loc))
			continue
		}
		top := a.Name
		if i := strings.IndexByte(top, '.'); i >= 0 {
			top = top[:i]
		}
		fr.env.set(top, ev.ResolvePath(top, a.Loc))
	}
}

func (ev *Evaluator) execImportFrom(fr *frame, s *syntax.ImportFrom) {
	if s.Level == 0 {
		ev.checkSurfaceImportFrom(s) // release_surface.go
	}
	if (s.Level > 0 || ev.canonicalModule(s.Module) == "") && ev.wsImportFrom(fr, s) { // imports.go
		return
	}
	if s.Level > 0 {
		for _, a := range s.Names {
			name := a.Name
			if a.AsName != nil {
				name = a.AsName.Id
			}
			if name != "*" {
				fr.env.set(name, &OpaqueV{Base{a.Loc}, strings.Repeat(".", s.Level) + s.Module + "." + a.Name})
			}
		}
		return
	}
	for _, a := range s.Names {
		if a.Name == "*" {
			if m := ev.Module(s.Module, a.Loc); m != nil {
				for _, n := range m.names {
					if v, ok := m.Attr(ev, n, a.Loc); ok {
						fr.env.set(n, v)
					}
				}
				continue
			}
			fr.env.root().vars["*opaque-star*"] = &OpaqueV{Base{a.Loc}, s.Module}
			continue
		}
		name := a.Name
		if a.AsName != nil {
			name = a.AsName.Id
		}
		full := s.Module + "." + a.Name
		var v Value
		if m := ev.Module(full, a.Loc); m != nil {
			v = m
		} else if m := ev.Module(s.Module, a.Loc); m != nil {
			v = ev.quietAttr(m, a.Name, a.Loc, a.Loc)
			if v == nil {
				v = &OpaqueV{Base{a.Loc}, full}
			}
		} else {
			v = &OpaqueV{Base{a.Loc}, full}
		}
		fr.env.set(name, v)
	}
}

// DtypeOf converts a dtype-like value (a string, tvm.DataType, T.float32).
func (ev *Evaluator) DtypeOf(v Value, span source.Span) (ir.DataType, bool) {
	if v == nil {
		ev.Errorf(span, CodeDtype, "missing dtype")
		return ir.DataType{}, false
	}
	switch x := v.(type) {
	case *StrV:
		if dt, ok := ParseDType(x.V); ok {
			return dt, true
		}
		if dtypeLike.MatchString(x.V) {
			ev.Warnf(span, CodeUnresolved, "dtype %s is not modelled by tilels", Repr(x))
		} else {
			ev.Errorf(span, CodeDtype, "unknown dtype %s", Repr(x))
		}
		return ir.DataType{}, false
	case *DTypeV:
		return x.DT, true
	}
	if IsErr(v) {
		ev.NeedConcrete(v, span, "a dtype")
		return ir.DataType{}, false
	}
	ev.Errorf(span, CodeDtype, "expected a dtype, got %s", Describe(v))
	return ir.DataType{}, false
}

// dtypeLike matches TVM dtype names tilels does not model (float4_e2m1fn,
// float8_e8m0fnu, int4, float16x2, ...).
var dtypeLike = regexp.MustCompile(`^(u?int(1|2|4|8|16|32|64)|float(4|6|8|16|32|64)(_e\dm\d[a-z]*)?|bfloat16)(x\d+)?$`)

// dtypeAliases are TVM's short dtype names.
var dtypeAliases = map[string]string{
	"f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16",
	"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
	"u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
	"float8_e4m3": "float8_e4m3fn", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2",
	"fp16": "float16", "fp32": "float32", "int": "int32", "float": "float32", "half": "float16",
}

func ParseDType(s string) (ir.DataType, bool) {
	if dt, ok := ir.ParseDType(s); ok {
		return dt, true
	}
	if a, ok := dtypeAliases[s]; ok {
		return ir.ParseDType(a)
	}
	return ir.DataType{}, false
}

// ---- math, functools, itertools, operator ----

func mathAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "inf":
		return &FloatV{Base{span}, math.Inf(1)}, true
	case "pi":
		return &FloatV{Base{span}, math.Pi}, true
	case "e":
		return &FloatV{Base{span}, math.E}, true
	case "nan":
		return &FloatV{Base{span}, math.NaN()}, true
	case "gcd", "lcm":
		return Builtin("math."+name, func(ev *Evaluator, c *Call) Value {
			if e := FirstErr(c.Args...); e != nil {
				return e
			}
			var acc int64
			if name == "lcm" {
				acc = 1
			}
			for i, a := range c.Args {
				n, ok := ev.IntArg(a, c.ArgSpans[i], "math."+name+" argument")
				if !ok {
					return Poison(c.At)
				}
				if n < 0 {
					n = -n
				}
				if name == "gcd" {
					acc = gcd(acc, n)
				} else if n == 0 || acc == 0 {
					acc = 0
				} else {
					acc = acc / gcd(acc, n) * n
				}
			}
			return &IntV{Base{c.At}, acc}
		}), true
	case "ceil", "floor", "trunc":
		return Builtin("math."+name, func(ev *Evaluator, c *Call) Value {
			v := c.Arg(0, "x")
			if v == nil || IsErr(v) {
				return OrPoison(v, c.At)
			}
			if n, ok := ToInt(v); ok && IsIntLike(v) {
				return &IntV{Base{c.At}, n}
			}
			f, ok := toFloat(v)
			if !ok {
				return ev.Errorf(c.At, CodeType, "must be real number, not %s", v.TypeName())
			}
			switch name {
			case "ceil":
				f = math.Ceil(f)
			case "floor":
				f = math.Floor(f)
			default:
				f = math.Trunc(f)
			}
			return &IntV{Base{c.At}, int64(f)}
		}), true
	case "log2", "log", "sqrt", "exp", "log10", "isqrt", "fabs":
		return Builtin("math."+name, func(ev *Evaluator, c *Call) Value {
			v := c.Arg(0, "x")
			if v == nil || IsErr(v) {
				return OrPoison(v, c.At)
			}
			f, ok := toFloat(v)
			if !ok {
				return ev.Errorf(c.At, CodeType, "must be real number, not %s", v.TypeName())
			}
			var r float64
			switch name {
			case "log2":
				r = math.Log2(f)
			case "log":
				r = math.Log(f)
				if b := c.Arg(1, "base"); b != nil {
					bf, _ := toFloat(b)
					r /= math.Log(bf)
				}
			case "log10":
				r = math.Log10(f)
			case "sqrt":
				r = math.Sqrt(f)
			case "exp":
				r = math.Exp(f)
			case "fabs":
				r = math.Abs(f)
			case "isqrt":
				return &IntV{Base{c.At}, int64(math.Sqrt(f))}
			}
			if math.IsNaN(r) && !math.IsNaN(f) {
				return ev.Errorf(c.At, CodeType, "math domain error")
			}
			return &FloatV{Base{c.At}, r}
		}), true
	case "isfinite", "isinf", "isnan":
		// math.isfinite(kernel_activation_clamp) (mega_moe.py's
		// use_activation_clamp)
		return Builtin("math."+name, func(ev *Evaluator, c *Call) Value {
			v := c.Arg(0, "x")
			if v == nil || IsErr(v) {
				return OrPoison(v, c.At)
			}
			f, ok := toFloat(v)
			if !ok {
				return ev.Errorf(c.At, CodeType, "must be real number, not %s", v.TypeName())
			}
			r := !math.IsInf(f, 0) && !math.IsNaN(f)
			switch name {
			case "isinf":
				r = math.IsInf(f, 0)
			case "isnan":
				r = math.IsNaN(f)
			}
			return &BoolV{Base{c.At}, r}
		}), true
	case "prod":
		return Builtin("math.prod", func(ev *Evaluator, c *Call) Value {
			elts, bad := scanArg(ev, c, 0, "prod")
			if bad != nil {
				return bad
			}
			var acc Value = &IntV{Base{c.At}, 1}
			if s, ok := c.Kw("start"); ok {
				acc = s
			}
			for _, e := range elts {
				acc = ev.Binop("*", acc, e, c.At, false)
			}
			return acc
		}), true
	case "pow":
		return Builtin("math.pow", func(ev *Evaluator, c *Call) Value {
			a, ok1 := toFloat(c.Arg(0, "x"))
			b, ok2 := toFloat(c.Arg(1, "y"))
			if !ok1 || !ok2 {
				return ev.Errorf(c.At, CodeType, "math.pow() needs two numbers")
			}
			return &FloatV{Base{c.At}, math.Pow(a, b)}
		}), true
	}
	return nil, false
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func functoolsAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "partial":
		return Builtin("functools.partial", func(ev *Evaluator, c *Call) Value {
			if len(c.Args) == 0 {
				return ev.Errorf(c.At, CodeType, "partial() takes at least 1 argument")
			}
			f, pre, preSpans, kws := c.Args[0], c.Args[1:], c.ArgSpans[1:], c.Kwargs
			return Builtin("functools.partial(...)", func(ev *Evaluator, c2 *Call) Value {
				n := &Call{Node: c2.Node, At: c2.At, FnSpan: c2.FnSpan, Fr: c2.Fr,
					Args:     append(append([]Value(nil), pre...), c2.Args...),
					ArgSpans: append(append([]source.Span(nil), preSpans...), c2.ArgSpans...),
					Kwargs:   append(append([]Kwarg(nil), kws...), c2.Kwargs...)}
				return ev.CallValue(f, n)
			})
		}), true
	case "reduce":
		return Builtin("functools.reduce", func(ev *Evaluator, c *Call) Value {
			elts, bad := iterArg(ev, c, 1, "reduce")
			if bad != nil {
				return bad
			}
			var acc Value
			if len(c.Args) > 2 {
				acc = c.Args[2]
			} else if len(elts) > 0 {
				acc, elts = elts[0], elts[1:]
			} else {
				return ev.Errorf(c.At, CodeType, "reduce() of empty iterable with no initial value")
			}
			for _, e := range elts {
				acc = ev.CallValue(c.Args[0], &Call{At: c.At, Args: []Value{acc, e}, ArgSpans: []source.Span{c.At, c.At}})
			}
			return acc
		}), true
	case "cache", "lru_cache", "wraps":
		b := Builtin("functools."+name, nil)
		b.Fn = func(ev *Evaluator, c *Call) Value {
			if len(c.Args) == 1 {
				if _, ok := c.Args[0].(*FuncV); ok {
					return c.Args[0]
				}
			}
			return Builtin("functools.cache", func(ev *Evaluator, c *Call) Value {
				if len(c.Args) == 1 {
					return c.Args[0]
				}
				return Poison(c.At)
			})
		}
		return b, true
	}
	return nil, false
}

func itertoolsAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "product":
		return Builtin("itertools.product", func(ev *Evaluator, c *Call) Value {
			var lists [][]Value
			for i := range c.Args {
				elts, bad := iterArg(ev, c, i, "product")
				if bad != nil {
					return bad
				}
				lists = append(lists, elts)
			}
			if r, ok := c.Kw("repeat"); ok {
				n, _ := ToInt(r)
				base := lists
				if !ev.charge(c.At, "list", mulCost(max(n, 0), mulCost(int64(len(base)), 24))) {
					return Poison(c.At)
				}
				for i := int64(1); i < n; i++ {
					lists = append(lists, base...)
				}
			}
			out := []Value{&TupleV{Base{c.At}, nil}}
			for k, l := range lists {
				var next []Value
				for _, t := range out {
					for _, e := range l {
						if !ev.step(c.At) || !ev.charge(c.At, "tuple", seqCost(int64(k+1), false)+costSlot) {
							return Poison(c.At)
						}
						next = append(next, &TupleV{Base{c.At}, append(append([]Value(nil), t.(*TupleV).Elts...), e)})
					}
				}
				out = next
			}
			return ev.mkList(c.At, out, false)
		}), true
	case "chain":
		return Builtin("itertools.chain", func(ev *Evaluator, c *Call) Value {
			var out []Value
			for i := range c.Args {
				elts, bad := iterArg(ev, c, i, "chain")
				if bad != nil {
					return bad
				}
				if !ev.charge(c.At, "list", mulCost(int64(len(elts)), costSlot)) {
					return Poison(c.At)
				}
				out = append(out, elts...)
			}
			return ev.mkList(c.At, out, false)
		}), true
	}
	return nil, false
}

func operatorAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	ops := map[string]string{"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%", "truediv": "/"}
	if op, ok := ops[name]; ok {
		return Builtin("operator."+name, func(ev *Evaluator, c *Call) Value {
			if !ev.CheckArgs(c, name, 2, "a", "b") {
				return Poison(c.At)
			}
			return ev.Binop(op, c.Args[0], c.Args[1], c.At, false)
		}), true
	}
	return nil, false
}

// numpyAttr models numpy.prod on static values (as math.prod).
func numpyAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	if name == "prod" {
		return mathAttr(ev, name, span)
	}
	return nil, false
}

// copyAttr models copy.copy and copy.deepcopy: lists and dicts are copied
// (deepcopy recursively, tuples too); every other value is immutable here.
func copyAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "copy", "deepcopy":
		deep := name == "deepcopy"
		return Builtin("copy."+name, func(ev *Evaluator, c *Call) Value {
			if !ev.CheckArgs(c, name, 1, "x") {
				return Poison(c.At)
			}
			return copyValue(c.Args[0], deep, c.At)
		}), true
	}
	return nil, false
}

func copyValue(v Value, deep bool, span source.Span) Value {
	return copyMemo(v, deep, span, map[Value]Value{})
}

// copyMemo copies v; memo maps each container already copied to its copy,
// as Python's deepcopy memo does, so shared and self-containing values
// are copied once (the work stays linear in the value's size).
func copyMemo(v Value, deep bool, span source.Span, memo map[Value]Value) Value {
	if c, ok := memo[v]; ok {
		return c
	}
	each := func(xs []Value) []Value {
		out := make([]Value, len(xs))
		for i, x := range xs {
			if deep {
				x = copyMemo(x, true, span, memo)
			}
			out[i] = x
		}
		return out
	}
	switch x := v.(type) {
	case *ListV:
		out := &ListV{Base: Base{span}}
		memo[v] = out
		out.Elts = each(x.Elts)
		return out
	case *TupleV:
		if deep {
			out := &TupleV{Base{span}, each(x.Elts)}
			memo[v] = out
			return out
		}
	case *DictV:
		d := NewDict(span)
		memo[v] = d
		for i, k := range x.Keys {
			val := x.Vals[i]
			if deep {
				val = copyMemo(val, true, span, memo)
			}
			d.Set(k, val)
		}
		return d
	case *InstanceV:
		return copyInstance(x, deep, span, memo) // class.go
	}
	return v
}
