package eval

import (
	"github.com/tilels/tilels/dsl/syntax"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// builtinNames are Python's builtins that tilels models. Names that are
// not here (and not defined in the file) are NameErrors.
var builtinNames map[string]Value

func Builtin(name string, fn func(ev *Evaluator, c *Call) Value) *BuiltinV {
	return &BuiltinV{Base{source.NoSpan}, name, fn}
}

func init() {
	builtinNames = map[string]Value{}
	add := func(name string, fn func(ev *Evaluator, c *Call) Value) {
		builtinNames[name] = Builtin(name, fn)
	}
	add("len", biLen)
	add("next", biNext)
	add("min", func(ev *Evaluator, c *Call) Value { return biMinMax(ev, c, "min") })
	add("max", func(ev *Evaluator, c *Call) Value { return biMinMax(ev, c, "max") })
	add("range", biRange)
	add("tuple", func(ev *Evaluator, c *Call) Value { return biSeq(ev, c, "tuple") })
	add("list", func(ev *Evaluator, c *Call) Value { return biSeq(ev, c, "list") })
	add("set", func(ev *Evaluator, c *Call) Value { return biSeq(ev, c, "set") })
	add("frozenset", func(ev *Evaluator, c *Call) Value { return biSeq(ev, c, "set") })
	add("dict", biDict)
	add("int", biInt)
	add("float", biFloat)
	add("str", biStr)
	add("bool", func(ev *Evaluator, c *Call) Value {
		v := c.Arg(0, "x")
		if v == nil {
			return &BoolV{Base{c.At}, false}
		}
		if IsErr(v) {
			return v
		}
		return &BoolV{Base{c.At}, Truthy(v)}
	})
	add("abs", biAbs)
	add("sum", biSum)
	add("round", biRound)
	add("divmod", func(ev *Evaluator, c *Call) Value {
		if !ev.CheckArgs(c, "divmod", 2, "a", "b") {
			return Poison(c.At)
		}
		q := ev.Binop("//", c.Args[0], c.Args[1], c.At, false)
		r := ev.Binop("%", c.Args[0], c.Args[1], c.At, false)
		return &TupleV{Base{c.At}, []Value{q, r}}
	})
	add("pow", func(ev *Evaluator, c *Call) Value {
		if !ev.CheckArgs(c, "pow", 2, "base", "exp") {
			return Poison(c.At)
		}
		return ev.Binop("**", c.Args[0], c.Args[1], c.At, false)
	})
	add("enumerate", biEnumerate)
	add("zip", biZip)
	add("reversed", func(ev *Evaluator, c *Call) Value {
		elts, bad := iterArg(ev, c, 0, "reversed")
		if bad != nil {
			return bad
		}
		if !ev.charge(c.At, "list", seqCost(int64(len(elts)), false)) {
			return Poison(c.At)
		}
		out := make([]Value, len(elts))
		for i, e := range elts {
			out[len(elts)-1-i] = e
		}
		return &ListV{Base{c.At}, out}
	})
	add("sorted", biSorted)
	add("map", biMap)
	add("filter", biFilter)
	add("any", func(ev *Evaluator, c *Call) Value { return biAnyAll(ev, c, false) })
	add("all", func(ev *Evaluator, c *Call) Value { return biAnyAll(ev, c, true) })
	add("isinstance", biIsinstance)
	add("getattr", biGetattr)
	add("hasattr", func(ev *Evaluator, c *Call) Value {
		if !ev.CheckArgs(c, "hasattr", 2, "obj", "name") {
			return Poison(c.At)
		}
		name, ok := ev.StrArg(c.Args[1], c.ArgSpans[1], "attribute name")
		if !ok {
			return Poison(c.At)
		}
		if IsErr(c.Args[0]) {
			return c.Args[0]
		}
		v := ev.quietAttr(c.Args[0], name, c.ArgSpans[1], c.At)
		return &BoolV{Base{c.At}, v != nil}
	})
	add("print", func(ev *Evaluator, c *Call) Value { return &NoneV{Base{c.At}} })
	add("repr", func(ev *Evaluator, c *Call) Value {
		v := c.Arg(0, "obj")
		if v == nil || IsErr(v) {
			return OrPoison(v, c.At)
		}
		s, ok := ev.strOf(c.At, v, true)
		if !ok {
			return Poison(c.At)
		}
		return &StrV{Base{c.At}, s}
	})
	add("slice", func(ev *Evaluator, c *Call) Value {
		none := &NoneV{Base{c.At}}
		switch len(c.Args) {
		case 1:
			return &SliceV{Base{c.At}, none, c.Args[0], none}
		case 2:
			return &SliceV{Base{c.At}, c.Args[0], c.Args[1], none}
		case 3:
			return &SliceV{Base{c.At}, c.Args[0], c.Args[1], c.Args[2]}
		}
		return ev.PyErrorf(c.At, "slice expected 1 to 3 arguments, got %d", len(c.Args))
	})
	add("chr", func(ev *Evaluator, c *Call) Value {
		n, ok := ev.IntArg(c.Arg(0, "i"), c.ArgSpan(0, "i"), "chr() argument")
		if !ok {
			return Poison(c.At)
		}
		return &StrV{Base{c.At}, string(rune(n))}
	})
	add("ord", func(ev *Evaluator, c *Call) Value {
		s, ok := ev.StrArg(c.Arg(0, "c"), c.ArgSpan(0, "c"), "ord() argument")
		if !ok || utf8.RuneCountInString(s) != 1 {
			return ev.PyErrorf(c.At, "ord() expected a character")
		}
		return &IntV{Base{c.At}, int64([]rune(s)[0])}
	})
	add("hex", func(ev *Evaluator, c *Call) Value {
		n, ok := ev.IntArg(c.Arg(0, "x"), c.ArgSpan(0, "x"), "hex() argument")
		if !ok {
			return Poison(c.At)
		}
		if n < 0 {
			return &StrV{Base{c.At}, "-0x" + strconv.FormatInt(-n, 16)}
		}
		return &StrV{Base{c.At}, "0x" + strconv.FormatInt(n, 16)}
	})
	for _, name := range []string{"Exception", "ValueError", "TypeError", "RuntimeError", "KeyError",
		"IndexError", "NotImplementedError", "AssertionError", "AttributeError", "ZeroDivisionError",
		"object", "super", "type", "id", "open", "iter", "callable", "vars", "locals", "globals",
		"property", "staticmethod", "classmethod", "setattr", "format", "bytes", "complex", "input", "exit",
		"Warning", "UserWarning", "DeprecationWarning", "RuntimeWarning", "StopIteration", "OSError",
		"ImportError", "ModuleNotFoundError", "FileNotFoundError", "LookupError", "ArithmeticError",
		"OverflowError", "BaseException", "SystemExit", "KeyboardInterrupt", "memoryview", "bytearray",
		"issubclass", "hash", "dir", "delattr", "breakpoint", "compile", "eval", "exec", "help", "aiter", "anext"} {
		n := name
		builtinNames[n] = &OpaqueV{Base{source.NoSpan}, n}
	}
	builtinNames["NotImplemented"] = &OpaqueV{Base{source.NoSpan}, "NotImplemented"}
	// Not "__main__": `if __name__ == "__main__":` blocks run tests.
	builtinNames["__name__"] = &StrV{Base{source.NoSpan}, "tilels_module"}
	builtinNames["__file__"] = &OpaqueV{Base{source.NoSpan}, "__file__"}
}

func OrPoison(v Value, span source.Span) Value {
	if v != nil {
		return v
	}
	return Poison(span)
}

// iterArg materializes iterable argument i.
func iterArg(ev *Evaluator, c *Call, i int, fname string) ([]Value, Value) {
	if i >= len(c.Args) {
		return nil, ev.PyErrorf(c.At, "%s() expected an iterable argument", fname)
	}
	v := c.Args[i]
	if IsErr(v) {
		return nil, v
	}
	elts, ok := ev.Iterate(v, c.ArgSpans[i])
	if !ok {
		return nil, ev.PyErrorf(c.ArgSpans[i], "'%s' object is not iterable", v.TypeName())
	}
	return elts, nil
}

// scanArg is iterArg for a function that goes over the elements without
// building a container of them (sum, min, any): the elements are charged
// as work (budget.go; what builds a container is charged by its size).
func scanArg(ev *Evaluator, c *Call, i int, fname string) ([]Value, Value) {
	elts, bad := iterArg(ev, c, i, fname)
	if bad == nil && !ev.work(c.At, len(elts), elemsPerStep) {
		return nil, Poison(c.At)
	}
	return elts, bad
}

func biLen(ev *Evaluator, c *Call) Value {
	if !ev.CheckArgs(c, "len", 1, "obj") {
		return Poison(c.At)
	}
	v := c.Args[0]
	if IsErr(v) {
		return v
	}
	switch v := v.(type) {
	case *TupleV:
		return &IntV{Base{c.At}, int64(len(v.Elts))}
	case *ListV:
		return &IntV{Base{c.At}, int64(len(v.Elts))}
	case *DictV:
		return &IntV{Base{c.At}, int64(len(v.Keys))}
	case *StrV:
		if !ev.work(c.At, len(v.V), bytesPerStep) {
			return Poison(c.At)
		}
		return &IntV{Base{c.At}, int64(utf8.RuneCountInString(v.V))}
	case *RangeV:
		return &IntV{Base{c.At}, rangeLen(v)}
	case *BufferV:
		return &IntV{Base{c.At}, int64(len(v.B.Shape))}
	}
	return ev.PyErrorf(c.ArgSpans[0], "object of type '%s' has no len()", v.TypeName())
}

func biMinMax(ev *Evaluator, c *Call, which string) Value {
	var elts []Value
	if len(c.Args) == 1 {
		var bad Value
		elts, bad = scanArg(ev, c, 0, which)
		if bad != nil {
			return bad
		}
	} else {
		elts = c.Args
	}
	if e := FirstErr(elts...); e != nil {
		return e
	}
	if len(elts) == 0 {
		if d, ok := c.Kw("default"); ok {
			return d
		}
		return ev.PyErrorf(c.At, "%s() arg is an empty sequence", which)
	}
	key, _ := c.Kw("key")
	best := elts[0]
	bestKey := best
	if key != nil {
		bestKey = ev.CallValue(key, &Call{At: c.At, Args: []Value{best}, ArgSpans: []source.Span{c.At}})
	}
	for _, e := range elts[1:] {
		k := e
		if key != nil {
			k = ev.CallValue(key, &Call{At: c.At, Args: []Value{e}, ArgSpans: []source.Span{c.At}})
		}
		if p := propagate(c.At, k, bestKey); p != nil {
			return p
		}
		_, kd := k.(*ExprV)
		_, bd := bestKey.(*ExprV)
		if kd || bd {
			if key != nil {
				return ev.PyErrorf(c.At, "%s() with key= over device values", which)
			}
			op := ir.Min
			if which == "max" {
				op = ir.Max
			}
			a, ok1 := ev.ToIR(bestKey, ir.DataType{})
			b, ok2 := ev.ToIR(k, ExprType(a))
			if !ok1 || !ok2 {
				return ev.PyErrorf(c.At, "%s() of %s and %s", which, bestKey.TypeName(), k.TypeName())
			}
			best = &ExprV{Base: Base{c.At}, E: MkBin(op, a, b, c.At)}
			bestKey = best
			continue
		}
		r, ok := pyCompare(k, bestKey)
		if !ok {
			return ev.PyErrorf(c.At, "'<' not supported between instances of '%s' and '%s'", k.TypeName(), bestKey.TypeName())
		}
		if (which == "min" && r < 0) || (which == "max" && r > 0) {
			best, bestKey = e, k
		}
	}
	return best
}

func biRange(ev *Evaluator, c *Call) Value {
	if len(c.Args) < 1 || len(c.Args) > 3 || len(c.Kwargs) > 0 {
		return ev.PyErrorf(c.At, "range expected 1 to 3 integer arguments, got %d", len(c.Args))
	}
	if e := FirstErr(c.Args...); e != nil {
		return e
	}
	device := false
	for _, a := range c.Args {
		if _, ok := a.(*ExprV); ok {
			if _, ok := ToInt(a); !ok {
				device = true
			}
		}
	}
	if device {
		return ev.LoopValue("range", ir.Serial, c, c.Args)
	}
	var ns [3]int64
	for i, a := range c.Args {
		n, ok := ToInt(a)
		if !ok {
			return ev.PyErrorf(c.ArgSpans[i], "'%s' object cannot be interpreted as an integer", a.TypeName())
		}
		ns[i] = n
	}
	r := &RangeV{Base: Base{c.At}, Step: 1}
	switch len(c.Args) {
	case 1:
		r.Stop = ns[0]
	case 2:
		r.Start, r.Stop = ns[0], ns[1]
	case 3:
		r.Start, r.Stop, r.Step = ns[0], ns[1], ns[2]
		if r.Step == 0 {
			return ev.PyErrorf(c.ArgSpans[2], "range() arg 3 must not be zero")
		}
	}
	return r
}

// rangeLoop turns a constant range into a device serial loop (a step
// other than 1 is kept in LoopV.Step; see deviceLoop).
func rangeLoop(r *RangeV) *LoopV {
	n := rangeLen(r)
	return &LoopV{Base: Base{r.At}, What: "range", Kind: ir.Serial,
		Mins:    []ir.Expr{&ir.IntImm{Value: r.Start, Type: ir.Int32, Span: r.At}},
		Extents: []ir.Expr{&ir.IntImm{Value: n, Type: ir.Int32, Span: r.At}},
		Step:    r.Step}
}

func biSeq(ev *Evaluator, c *Call, kind string) Value {
	if len(c.Args) == 0 {
		if kind == "tuple" {
			return &TupleV{Base{c.At}, nil}
		}
		return &ListV{Base{c.At}, nil}
	}
	elts, bad := iterArg(ev, c, 0, kind)
	if bad != nil {
		return bad
	}
	if t, ok := c.Args[0].(*TupleV); ok && kind == "tuple" {
		return &TupleV{Base{c.At}, t.Elts} // immutable: shared
	}
	// The elements may be another container's (iterate): copied.
	if !ev.charge(c.At, kind, seqCost(int64(len(elts)), false)) {
		return Poison(c.At)
	}
	elts = append([]Value(nil), elts...)
	switch kind {
	case "tuple":
		return &TupleV{Base{c.At}, elts}
	case "set":
		if !ev.hashWork(c.At, elts...) {
			return Poison(c.At)
		}
		return &ListV{Base{c.At}, dedup(elts)}
	}
	return &ListV{Base{c.At}, elts}
}

func biDict(ev *Evaluator, c *Call) Value {
	d := NewDict(c.At)
	if len(c.Args) > 0 {
		switch src := c.Args[0].(type) {
		case *DictV:
			for i := range src.Keys {
				ev.setEntry(d, src.Keys[i], src.Vals[i], c.At)
			}
		default:
			if IsErr(src) {
				return src
			}
			elts, bad := iterArg(ev, c, 0, "dict")
			if bad != nil {
				return bad
			}
			for _, e := range elts {
				kv := SeqElts(e)
				if s, ok := e.(*StrV); ok && utf8.RuneCountInString(s.V) == 2 {
					r, n := utf8.DecodeRuneInString(s.V)
					kv = []Value{&StrV{Base{s.At}, string(r)}, &StrV{Base{s.At}, s.V[n:]}}
				}
				if len(kv) != 2 {
					return ev.PyErrorf(c.ArgSpans[0], "dictionary update sequence element has length %d; 2 is required", len(kv))
				}
				if !ev.setEntry(d, kv[0], kv[1], c.At) {
					return ev.PyErrorf(c.ArgSpans[0], "unhashable type: '%s'", kv[0].TypeName())
				}
			}
		}
	}
	for _, k := range c.Kwargs {
		ev.setEntry(d, &StrV{Base{k.At}, k.Name}, k.V, k.At)
	}
	if ev.Halted {
		return Poison(c.At)
	}
	return d
}

func biInt(ev *Evaluator, c *Call) Value {
	v := c.Arg(0, "x")
	if v == nil {
		return &IntV{Base{c.At}, 0}
	}
	if IsErr(v) {
		return v
	}
	switch x := v.(type) {
	case *IntV:
		return x
	case *BoolV:
		n, _ := ToInt(x)
		return &IntV{Base{c.At}, n}
	case *FloatV:
		if math.IsNaN(x.V) || math.IsInf(x.V, 0) || math.Abs(x.V) > 9e18 {
			return ev.PyErrorf(c.At, "cannot convert float %s to integer", pyFloat(x.V))
		}
		return &IntV{Base{c.At}, int64(x.V)}
	case *StrV:
		b := 10
		if bv := c.Arg(1, "base"); bv != nil {
			n, ok := ToInt(bv)
			if !ok {
				return ev.PyErrorf(c.At, "int() base must be an integer")
			}
			b = int(n)
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(x.V), "_", ""), b, 64)
		if err != nil {
			return ev.PyErrorf(c.At, "invalid literal for int() with base %d: %s", b, Repr(x))
		}
		return &IntV{Base{c.At}, n}
	case *ExprV:
		if n, ok := ToInt(x); ok {
			return &IntV{Base{c.At}, n}
		}
		return ev.PyErrorf(c.ArgSpans[0], "cannot convert device value `%s` to a Python int", ExprString(x.E))
	case *EnumV:
		return &IntV{Base{c.At}, x.V}
	}
	return ev.PyErrorf(c.At, "int() argument must be a string or a number, not '%s'", v.TypeName())
}

func biFloat(ev *Evaluator, c *Call) Value {
	v := c.Arg(0, "x")
	if v == nil {
		return &FloatV{Base{c.At}, 0}
	}
	if IsErr(v) {
		return v
	}
	if s, ok := v.(*StrV); ok {
		t := strings.ToLower(strings.TrimSpace(s.V))
		switch t {
		case "inf", "+inf", "infinity":
			return &FloatV{Base{c.At}, math.Inf(1)}
		case "-inf", "-infinity":
			return &FloatV{Base{c.At}, math.Inf(-1)}
		case "nan":
			return &FloatV{Base{c.At}, math.NaN()}
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return ev.PyErrorf(c.At, "could not convert string to float: %s", Repr(s))
		}
		return &FloatV{Base{c.At}, f}
	}
	if f, ok := toFloat(v); ok {
		return &FloatV{Base{c.At}, f}
	}
	return ev.PyErrorf(c.At, "float() argument must be a string or a number, not '%s'", v.TypeName())
}

func biStr(ev *Evaluator, c *Call) Value {
	v := c.Arg(0, "object")
	if v == nil {
		return &StrV{Base{c.At}, ""}
	}
	if IsErr(v) {
		return v
	}
	s, ok := ev.strOf(c.At, v, false)
	if !ok {
		return Poison(c.At)
	}
	return &StrV{Base{c.At}, s}
}

func biAbs(ev *Evaluator, c *Call) Value {
	if !ev.CheckArgs(c, "abs", 1, "x") {
		return Poison(c.At)
	}
	v := c.Args[0]
	switch x := v.(type) {
	case *IntV:
		if x.V < 0 {
			return ev.unary("-", x, c.At)
		}
		return x
	case *BoolV:
		n, _ := ToInt(x)
		return &IntV{Base{c.At}, n}
	case *FloatV:
		return &FloatV{Base{c.At}, math.Abs(x.V)}
	case *ExprV:
		return &ExprV{Base: Base{c.At}, E: &ir.Call{Op: "abs", Args: []ir.Expr{x.E}, Type: ExprType(x.E), Span: c.At}}
	}
	if IsErr(v) {
		return v
	}
	return ev.PyErrorf(c.At, "bad operand type for abs(): '%s'", v.TypeName())
}

func biSum(ev *Evaluator, c *Call) Value {
	elts, bad := scanArg(ev, c, 0, "sum")
	if bad != nil {
		return bad
	}
	var acc Value = &IntV{Base{c.At}, 0}
	if s := c.Arg(1, "start"); s != nil {
		acc = s
	}
	for _, e := range elts {
		acc = ev.Binop("+", acc, e, c.At, false)
		if IsErr(acc) {
			return acc
		}
	}
	return acc
}

func biRound(ev *Evaluator, c *Call) Value {
	v := c.Arg(0, "number")
	if v == nil || IsErr(v) {
		return OrPoison(v, c.At)
	}
	f, ok := toFloat(v)
	if !ok {
		return ev.PyErrorf(c.At, "type %s doesn't define __round__ method", v.TypeName())
	}
	if nd := c.Arg(1, "ndigits"); nd != nil {
		if _, none := nd.(*NoneV); !none {
			n, ok := ToInt(nd)
			if !ok {
				return ev.PyErrorf(c.At, "ndigits must be an integer")
			}
			p := math.Pow(10, float64(n))
			return &FloatV{Base{c.At}, math.RoundToEven(f*p) / p}
		}
	}
	if IsIntLike(v) {
		n, _ := ToInt(v)
		return &IntV{Base{c.At}, n}
	}
	return &IntV{Base{c.At}, int64(math.RoundToEven(f))}
}

func biEnumerate(ev *Evaluator, c *Call) Value {
	elts, bad := iterArg(ev, c, 0, "enumerate")
	if bad != nil {
		return bad
	}
	start := int64(0)
	if s := c.Arg(1, "start"); s != nil {
		n, ok := ev.IntArg(s, c.ArgSpan(1, "start"), "enumerate start")
		if !ok {
			return Poison(c.At)
		}
		start = n
	}
	// A list of fresh (i, e) pairs.
	if !ev.charge(c.At, "list", addCost(seqCost(int64(len(elts)), true), mulCost(int64(len(elts)), seqCost(2, true)))) {
		return Poison(c.At)
	}
	out := make([]Value, len(elts))
	for i, e := range elts {
		out[i] = &TupleV{Base{c.At}, []Value{&IntV{Base{c.At}, start + int64(i)}, e}}
	}
	return &ListV{Base{c.At}, out}
}

func biZip(ev *Evaluator, c *Call) Value {
	var lists [][]Value
	n := -1
	for i := range c.Args {
		elts, bad := iterArg(ev, c, i, "zip")
		if bad != nil {
			return bad
		}
		lists = append(lists, elts)
		if n < 0 || len(elts) < n {
			n = len(elts)
		}
	}
	if n < 0 {
		n = 0
	}
	if !ev.charge(c.At, "list", addCost(seqCost(int64(n), true), mulCost(int64(n), seqCost(int64(len(lists)), false)))) {
		return Poison(c.At)
	}
	out := make([]Value, n)
	for i := 0; i < n; i++ {
		t := make([]Value, len(lists))
		for j := range lists {
			t[j] = lists[j][i]
		}
		out[i] = &TupleV{Base{c.At}, t}
	}
	return &ListV{Base{c.At}, out}
}

func biSorted(ev *Evaluator, c *Call) Value {
	elts, bad := iterArg(ev, c, 0, "sorted")
	if bad != nil {
		return bad
	}
	// The copy, the keys, the order and the result; the comparisons
	// (n log n) as work.
	if !ev.charge(c.At, "list", mulCost(seqCost(int64(len(elts)), false), 4)) ||
		!ev.work(c.At, len(elts)*bits.Len(uint(len(elts))), elemsPerStep) {
		return Poison(c.At)
	}
	out := append([]Value(nil), elts...)
	keys := out
	if key, ok := c.Kw("key"); ok {
		if _, none := key.(*NoneV); !none {
			keys = make([]Value, len(out))
			for i, e := range out {
				keys[i] = ev.CallValue(key, &Call{At: c.At, Args: []Value{e}, ArgSpans: []source.Span{c.At}})
			}
		}
	}
	if e := FirstErr(keys...); e != nil {
		return e
	}
	rev := false
	if r, ok := c.Kw("reverse"); ok {
		rev = Truthy(r)
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	okAll := true
	sort.SliceStable(idx, func(a, b int) bool {
		r, ok := pyCompare(keys[idx[a]], keys[idx[b]])
		if !ok {
			okAll = false
		}
		if rev {
			return r > 0
		}
		return r < 0
	})
	if !okAll {
		return ev.PyErrorf(c.At, "sorted() of values that cannot be compared")
	}
	res := make([]Value, len(out))
	for i, j := range idx {
		res[i] = out[j]
	}
	return &ListV{Base{c.At}, res}
}

func biMap(ev *Evaluator, c *Call) Value {
	if len(c.Args) < 2 {
		return ev.PyErrorf(c.At, "map() must have at least two arguments")
	}
	z := biZip(ev, &Call{At: c.At, Args: c.Args[1:], ArgSpans: c.ArgSpans[1:]})
	l, ok := z.(*ListV)
	if !ok {
		return z
	}
	if !ev.charge(c.At, "list", seqCost(int64(len(l.Elts)), false)) {
		return Poison(c.At)
	}
	out := make([]Value, len(l.Elts))
	for i, t := range l.Elts {
		args := t.(*TupleV).Elts
		out[i] = ev.CallValue(c.Args[0], &Call{At: c.At, Args: args, ArgSpans: spansOf(args)})
	}
	return &ListV{Base{c.At}, out}
}

func biFilter(ev *Evaluator, c *Call) Value {
	elts, bad := iterArg(ev, c, 1, "filter")
	if bad != nil {
		return bad
	}
	var out []Value
	for _, e := range elts {
		keep := e
		if _, none := c.Args[0].(*NoneV); !none {
			keep = ev.CallValue(c.Args[0], &Call{At: c.At, Args: []Value{e}, ArgSpans: []source.Span{c.At}})
		}
		if IsErr(keep) {
			return keep
		}
		if Truthy(keep) {
			out = append(out, e)
		}
	}
	return ev.mkList(c.At, out, false)
}

func biAnyAll(ev *Evaluator, c *Call, all bool) Value {
	elts, bad := scanArg(ev, c, 0, "any")
	if bad != nil {
		return bad
	}
	for _, e := range elts {
		if IsErr(e) {
			return e
		}
		if Truthy(e) != all {
			return &BoolV{Base{c.At}, !all}
		}
	}
	return &BoolV{Base{c.At}, all}
}

func biIsinstance(ev *Evaluator, c *Call) Value {
	if !ev.CheckArgs(c, "isinstance", 2, "obj", "class") {
		return Poison(c.At)
	}
	v, t := c.Args[0], c.Args[1]
	if IsErr(v) {
		return v
	}
	types := []Value{t}
	if tv, ok := t.(*TupleV); ok {
		types = tv.Elts
	}
	for _, ty := range types {
		if cls, ok := ty.(*ClassV); ok { // class.go
			if cls == objectClass {
				return &BoolV{Base{c.At}, true}
			}
			if inst, ok := v.(*InstanceV); ok && inst.Class.isSubclassOf(cls) {
				return &BoolV{Base{c.At}, true}
			}
			if e, ok := v.(*EnumV); ok && e.Type == cls.Name {
				return &BoolV{Base{c.At}, true}
			}
			continue
		}
		b, ok := ty.(*BuiltinV)
		if !ok {
			return &OpaqueV{Base{c.At}, "isinstance(...)"}
		}
		var match bool
		switch b.Name {
		case "int":
			match = IsIntLike(v)
		case "float":
			_, match = v.(*FloatV)
		case "bool":
			_, match = v.(*BoolV)
		case "str":
			_, match = v.(*StrV)
		case "tuple":
			_, match = v.(*TupleV)
		case "list":
			_, match = v.(*ListV)
		case "dict":
			_, match = v.(*DictV)
		case "range":
			_, match = v.(*RangeV)
		case "slice":
			_, match = v.(*SliceV)
		default:
			return &OpaqueV{Base{c.At}, "isinstance(...)"}
		}
		if match {
			return &BoolV{Base{c.At}, true}
		}
	}
	return &BoolV{Base{c.At}, false}
}

func biGetattr(ev *Evaluator, c *Call) Value {
	if len(c.Args) < 2 || len(c.Args) > 3 {
		return ev.PyErrorf(c.At, "getattr expected 2 or 3 arguments, got %d", len(c.Args))
	}
	name, ok := ev.StrArg(c.Args[1], c.ArgSpans[1], "attribute name")
	if !ok {
		return Poison(c.At)
	}
	if len(c.Args) == 3 {
		if IsErr(c.Args[0]) {
			return c.Args[0]
		}
		if v := ev.quietAttr(c.Args[0], name, c.ArgSpans[1], c.At); v != nil {
			return v
		}
		return c.Args[2]
	}
	return ev.GetAttr(c.Args[0], name, c.ArgSpans[1], c.At)
}

// ---- methods of Python values ----

func Method(name string, fn func(ev *Evaluator, c *Call) Value) *BuiltinV {
	return Builtin(name, fn)
}

func (ev *Evaluator) strMethod(s *StrV, name string) Value {
	switch name {
	case "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "count", "find", "index", "isdigit", "isalpha", "isupper", "islower":
		// Methods that scan s: charged by its length (the others build a
		// str about as long, charged to the value budget).
		return charged(ev.strMethodScan(s, name), func() int { return len(s.V) }, bytesPerStep)
	}
	return ev.strMethodScan(s, name)
}

func (ev *Evaluator) strMethodScan(s *StrV, name string) Value {
	switch name {
	case "join":
		return Method("str.join", func(ev *Evaluator, c *Call) Value {
			elts, bad := iterArg(ev, c, 0, "join")
			if bad != nil {
				return bad
			}
			parts := make([]string, len(elts))
			n := mulCost(int64(len(s.V)), int64(max(len(elts)-1, 0)))
			for i, e := range elts {
				x, ok := e.(*StrV)
				if !ok {
					if IsErr(e) {
						return e
					}
					return ev.PyErrorf(c.At, "sequence item %d: expected str instance, %s found", i, e.TypeName())
				}
				parts[i] = x.V
				n = addCost(n, int64(len(x.V)))
			}
			if !ev.charge(c.At, "str", strCost(n)) {
				return Poison(c.At)
			}
			return &StrV{Base{c.At}, strings.Join(parts, s.V)}
		})
	case "format":
		return Method("str.format", func(ev *Evaluator, c *Call) Value { return ev.strFormat(s.V, c) })
	case "upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize":
		return Method("str."+name, func(ev *Evaluator, c *Call) Value {
			cut := " \t\n\r\v\f"
			if a := c.Arg(0, "chars"); a != nil {
				if cs, ok := a.(*StrV); ok {
					cut = cs.V
				}
			}
			switch name {
			case "strip":
				return &StrV{Base{c.At}, strings.Trim(s.V, cut)} // a substring: nothing new
			case "lstrip":
				return &StrV{Base{c.At}, strings.TrimLeft(s.V, cut)}
			case "rstrip":
				return &StrV{Base{c.At}, strings.TrimRight(s.V, cut)}
			}
			// Case mapping makes a string about as long as s: charged first.
			if !ev.charge(c.At, "str", strCost(int64(len(s.V)))) {
				return Poison(c.At)
			}
			switch name {
			case "upper":
				return &StrV{Base{c.At}, strings.ToUpper(s.V)}
			case "lower":
				return &StrV{Base{c.At}, strings.ToLower(s.V)}
			case "capitalize":
				if s.V == "" {
					return s
				}
				return &StrV{Base{c.At}, strings.ToUpper(s.V[:1]) + strings.ToLower(s.V[1:])}
			}
			return &StrV{Base{c.At}, strings.ToTitle(s.V)}
		})
	case "startswith", "endswith":
		return Method("str."+name, func(ev *Evaluator, c *Call) Value {
			a := c.Arg(0, "prefix")
			cands := []Value{a}
			if t, ok := a.(*TupleV); ok {
				cands = t.Elts
			}
			for _, x := range cands {
				p, ok := x.(*StrV)
				if !ok {
					return ev.PyErrorf(c.At, "%s arg must be str or a tuple of str", name)
				}
				if (name == "startswith" && strings.HasPrefix(s.V, p.V)) || (name == "endswith" && strings.HasSuffix(s.V, p.V)) {
					return &BoolV{Base{c.At}, true}
				}
			}
			return &BoolV{Base{c.At}, false}
		})
	case "replace":
		return Method("str.replace", func(ev *Evaluator, c *Call) Value {
			a, ok1 := c.Arg(0, "old").(*StrV)
			b, ok2 := c.Arg(1, "new").(*StrV)
			if !ok1 || !ok2 {
				return ev.PyErrorf(c.At, "replace() arguments must be str")
			}
			// The result's length is known before it is built.
			n := int64(len(s.V))
			if len(b.V) > len(a.V) {
				k := int64(strings.Count(s.V, a.V))
				n = addCost(n, mulCost(k, int64(len(b.V)-len(a.V))))
			}
			if !ev.charge(c.At, "str", strCost(n)) {
				return Poison(c.At)
			}
			return &StrV{Base{c.At}, strings.ReplaceAll(s.V, a.V, b.V)}
		})
	case "split":
		return Method("str.split", func(ev *Evaluator, c *Call) Value {
			var parts []string
			if sep, ok := c.Arg(0, "sep").(*StrV); ok {
				parts = strings.Split(s.V, sep.V)
			} else {
				parts = strings.Fields(s.V)
			}
			if !ev.charge(c.At, "list", seqCost(int64(len(parts)), true)) {
				return Poison(c.At)
			}
			out := make([]Value, len(parts))
			for i, p := range parts {
				out[i] = &StrV{Base{c.At}, p} // substrings of s
			}
			return &ListV{Base{c.At}, out}
		})
	case "count", "find", "index":
		return Method("str."+name, func(ev *Evaluator, c *Call) Value {
			sub, ok := c.Arg(0, "sub").(*StrV)
			if !ok {
				return ev.PyErrorf(c.At, "%s() argument must be str", name)
			}
			switch name {
			case "count":
				return &IntV{Base{c.At}, int64(strings.Count(s.V, sub.V))}
			case "find":
				return &IntV{Base{c.At}, int64(strings.Index(s.V, sub.V))}
			}
			i := strings.Index(s.V, sub.V)
			if i < 0 {
				return ev.PyErrorf(c.At, "substring not found")
			}
			return &IntV{Base{c.At}, int64(i)}
		})
	case "isdigit", "isalpha", "isupper", "islower":
		return Method("str."+name, func(ev *Evaluator, c *Call) Value {
			ok := s.V != ""
			for _, r := range s.V {
				switch name {
				case "isdigit":
					ok = ok && unicode.IsDigit(r)
				case "isalpha":
					ok = ok && unicode.IsLetter(r)
				case "isupper":
					ok = ok && !unicode.IsLower(r)
				case "islower":
					ok = ok && !unicode.IsUpper(r)
				}
			}
			return &BoolV{Base{c.At}, ok}
		})
	case "zfill":
		return Method("str.zfill", func(ev *Evaluator, c *Call) Value {
			n, ok := ev.IntArg(c.Arg(0, "width"), c.ArgSpan(0, "width"), "zfill width")
			if !ok {
				return Poison(c.At)
			}
			pad := n - int64(len(s.V))
			if pad <= 0 {
				return s
			}
			if !ev.charge(c.At, "str", strCost(n)) {
				return Poison(c.At)
			}
			sign, digits := "", s.V
			if digits != "" && (digits[0] == '+' || digits[0] == '-') {
				sign, digits = digits[:1], digits[1:]
			}
			return &StrV{Base{c.At}, sign + strings.Repeat("0", int(pad)) + digits}
		})
	case "ljust", "rjust", "center":
		return Method("str."+name, func(ev *Evaluator, c *Call) Value {
			n, ok := ev.IntArg(c.Arg(0, "width"), c.ArgSpan(0, "width"), name+" width")
			if !ok {
				return Poison(c.At)
			}
			fill := " "
			if a := c.Arg(1, "fillchar"); a != nil {
				f, ok := a.(*StrV)
				if !ok || utf8.RuneCountInString(f.V) != 1 {
					return ev.PyErrorf(c.ArgSpan(1, "fillchar"), "The fill character must be exactly one character long")
				}
				fill = f.V
			}
			pad := n - int64(utf8.RuneCountInString(s.V))
			if pad <= 0 {
				return s
			}
			if !ev.charge(c.At, "str", strCost(addCost(int64(len(s.V)), mulCost(pad, int64(len(fill)))))) {
				return Poison(c.At)
			}
			left := int64(0)
			switch name {
			case "rjust":
				left = pad
			case "center":
				// CPython's rule: the extra fill goes left when pad and
				// the width are both odd.
				left = pad/2 + (pad & n & 1)
			}
			return &StrV{Base{c.At}, strings.Repeat(fill, int(left)) + s.V + strings.Repeat(fill, int(pad-left))}
		})
	}
	return nil
}

// strFormat implements str.format with {} / {0} / {name} fields and
// format specs. Like percentFormat it charges the format's length, then
// each converted field before it is appended.
func (ev *Evaluator) strFormat(f string, c *Call) Value {
	if !ev.charge(c.At, "str", strCost(int64(len(f)))) {
		return Poison(c.At)
	}
	var b strings.Builder
	auto := 0
	for i := 0; i < len(f); i++ {
		ch := f[i]
		if ch == '}' && i+1 < len(f) && f[i+1] == '}' {
			b.WriteByte('}')
			i++
			continue
		}
		if ch != '{' {
			b.WriteByte(ch)
			continue
		}
		if i+1 < len(f) && f[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		j := strings.IndexByte(f[i:], '}')
		if j < 0 {
			return ev.PyErrorf(c.At, "single '{' encountered in format string")
		}
		field := f[i+1 : i+j]
		i += j
		spec := ""
		if k := strings.IndexByte(field, ':'); k >= 0 {
			field, spec = field[:k], field[k+1:]
		}
		conv := byte(0)
		if k := strings.IndexByte(field, '!'); k >= 0 && k+1 < len(field) {
			conv = field[k+1]
			field = field[:k]
		}
		var v Value
		if field == "" {
			v = c.Arg(auto, "")
			auto++
		} else if n, err := strconv.Atoi(field); err == nil {
			v = c.Arg(n, "")
		} else {
			v, _ = c.Kw(field)
		}
		if v == nil {
			return ev.PyErrorf(c.At, "format field {%s} has no argument", field)
		}
		if IsErr(v) {
			return v
		}
		if conv == 'r' || conv == 's' {
			s, ok := ev.strOf(c.At, v, conv == 'r')
			if !ok {
				return Poison(c.At)
			}
			v = &StrV{Base{c.At}, s}
		}
		s, ok := ev.formatValue(v, spec, c.At)
		if ev.Halted {
			return Poison(c.At)
		}
		if !ok {
			return ev.PyErrorf(c.At, "unsupported format spec %q for %s", spec, v.TypeName())
		}
		if !ev.charge(c.At, "str", int64(len(s))) {
			return Poison(c.At)
		}
		b.WriteString(s)
	}
	return &StrV{Base{c.At}, b.String()}
}

func (ev *Evaluator) listMethod(l *ListV, name string) Value {
	switch name {
	case "insert", "pop", "index", "count", "remove", "reverse":
		// Methods that search or move the elements: charged by their
		// number.
		return charged(ev.listMethodN(l, name), func() int { return len(l.Elts) }, elemsPerStep)
	}
	return ev.listMethodN(l, name)
}

func (ev *Evaluator) listMethodN(l *ListV, name string) Value {
	switch name {
	case "append":
		return Method("list.append", func(ev *Evaluator, c *Call) Value {
			if !ev.CheckArgs(c, "append", 1, "object") {
				return Poison(c.At)
			}
			if !ev.charge(c.At, "list", costSlot) {
				return Poison(c.At)
			}
			l.Elts = append(l.Elts, c.Args[0])
			return &NoneV{Base{c.At}}
		})
	case "extend":
		return Method("list.extend", func(ev *Evaluator, c *Call) Value {
			if len(c.Args) == 0 {
				return ev.PyErrorf(c.At, "extend() expected an iterable argument")
			}
			if IsErr(c.Args[0]) {
				return c.Args[0]
			}
			if !ev.extend(l, c.Args[0], c.At) {
				if ev.Halted {
					return Poison(c.At)
				}
				return ev.PyErrorf(c.ArgSpans[0], "'%s' object is not iterable", c.Args[0].TypeName())
			}
			return &NoneV{Base{c.At}}
		})
	case "insert":
		return Method("list.insert", func(ev *Evaluator, c *Call) Value {
			if !ev.CheckArgs(c, "insert", 2, "index", "object") {
				return Poison(c.At)
			}
			i, ok := ev.IntArg(c.Args[0], c.ArgSpans[0], "insert index")
			if !ok {
				return Poison(c.At)
			}
			n := int64(len(l.Elts))
			if i < 0 {
				i = max(i+n, 0)
			}
			i = min(i, n)
			if !ev.charge(c.At, "list", costSlot) {
				return Poison(c.At)
			}
			l.Elts = append(l.Elts[:i:i], append([]Value{c.Args[1]}, l.Elts[i:]...)...)
			return &NoneV{Base{c.At}}
		})
	case "pop":
		return Method("list.pop", func(ev *Evaluator, c *Call) Value {
			i := int64(-1)
			if a := c.Arg(0, "index"); a != nil {
				n, ok := ev.IntArg(a, c.ArgSpan(0, "index"), "pop index")
				if !ok {
					return Poison(c.At)
				}
				i = n
			}
			j, ok := normIndex(i, len(l.Elts))
			if !ok {
				return ev.PyErrorf(c.At, "pop index out of range")
			}
			v := l.Elts[j]
			l.Elts = append(l.Elts[:j:j], l.Elts[j+1:]...)
			return v
		})
	case "index", "count", "remove":
		return Method("list."+name, func(ev *Evaluator, c *Call) Value {
			x := c.Arg(0, "value")
			n := 0
			for i, e := range l.Elts {
				if pyEqual(e, x) {
					switch name {
					case "index":
						return &IntV{Base{c.At}, int64(i)}
					case "remove":
						l.Elts = append(l.Elts[:i:i], l.Elts[i+1:]...)
						return &NoneV{Base{c.At}}
					}
					n++
				}
			}
			if name == "count" {
				return &IntV{Base{c.At}, int64(n)}
			}
			return ev.PyErrorf(c.At, "%s is not in list", Repr(x))
		})
	case "copy":
		return Method("list.copy", func(ev *Evaluator, c *Call) Value {
			if !ev.charge(c.At, "list", seqCost(int64(len(l.Elts)), false)) {
				return Poison(c.At)
			}
			return &ListV{Base{c.At}, append([]Value(nil), l.Elts...)}
		})
	case "clear":
		return Method("list.clear", func(ev *Evaluator, c *Call) Value {
			l.Elts = nil
			return &NoneV{Base{c.At}}
		})
	case "reverse":
		return Method("list.reverse", func(ev *Evaluator, c *Call) Value {
			for i, j := 0, len(l.Elts)-1; i < j; i, j = i+1, j-1 {
				l.Elts[i], l.Elts[j] = l.Elts[j], l.Elts[i]
			}
			return &NoneV{Base{c.At}}
		})
	case "sort":
		return Method("list.sort", func(ev *Evaluator, c *Call) Value {
			c2 := *c
			c2.Args = []Value{l}
			c2.ArgSpans = []source.Span{c.At}
			s := biSorted(ev, &c2)
			if sl, ok := s.(*ListV); ok {
				l.Elts = sl.Elts
				return &NoneV{Base{c.At}}
			}
			return s
		})
	}
	return nil
}

func (ev *Evaluator) tupleMethod(t *TupleV, name string) Value {
	switch name {
	case "index", "count":
		return charged(Method("tuple."+name, func(ev *Evaluator, c *Call) Value {
			x := c.Arg(0, "value")
			n := 0
			for i, e := range t.Elts {
				if pyEqual(e, x) {
					if name == "index" {
						return &IntV{Base{c.At}, int64(i)}
					}
					n++
				}
			}
			if name == "count" {
				return &IntV{Base{c.At}, int64(n)}
			}
			return ev.PyErrorf(c.At, "tuple.index(x): x not in tuple")
		}), func() int { return len(t.Elts) }, elemsPerStep)
	}
	return nil
}

func (ev *Evaluator) dictMethod(d *DictV, name string) Value {
	switch name {
	case "get":
		return Method("dict.get", func(ev *Evaluator, c *Call) Value {
			k := c.Arg(0, "key")
			if k == nil {
				return ev.PyErrorf(c.At, "get expected at least 1 argument, got 0")
			}
			if IsErr(k) {
				return k
			}
			if !ev.hashWork(c.At, k) {
				return Poison(c.At)
			}
			v, found, _ := d.get(k)
			if found {
				return v
			}
			if def := c.Arg(1, "default"); def != nil {
				return def
			}
			return &NoneV{Base{c.At}}
		})
	case "items", "keys", "values":
		return Method("dict."+name, func(ev *Evaluator, c *Call) Value {
			cost := seqCost(int64(len(d.Keys)), false)
			if name == "items" {
				cost = addCost(cost, mulCost(int64(len(d.Keys)), seqCost(2, false)))
			}
			if !ev.charge(c.At, "list", cost) {
				return Poison(c.At)
			}
			out := make([]Value, len(d.Keys))
			for i := range d.Keys {
				switch name {
				case "items":
					out[i] = &TupleV{Base{c.At}, []Value{d.Keys[i], d.Vals[i]}}
				case "keys":
					out[i] = d.Keys[i]
				default:
					out[i] = d.Vals[i]
				}
			}
			return &ListV{Base{c.At}, out}
		})
	case "update":
		return Method("dict.update", func(ev *Evaluator, c *Call) Value {
			src := biDict(ev, c)
			if s, ok := src.(*DictV); ok {
				for i := range s.Keys {
					ev.setEntry(d, s.Keys[i], s.Vals[i], c.At)
				}
			}
			if ev.Halted {
				return Poison(c.At)
			}
			return &NoneV{Base{c.At}}
		})
	case "copy":
		return Method("dict.copy", func(ev *Evaluator, c *Call) Value {
			n := NewDict(c.At)
			for i := range d.Keys {
				ev.setEntry(n, d.Keys[i], d.Vals[i], c.At)
			}
			if ev.Halted {
				return Poison(c.At)
			}
			return n
		})
	case "setdefault":
		return Method("dict.setdefault", func(ev *Evaluator, c *Call) Value {
			k := c.Arg(0, "key")
			if k != nil && !ev.hashWork(c.At, k) {
				return Poison(c.At)
			}
			if v, found, _ := d.get(k); found {
				return v
			}
			if k == nil {
				return ev.PyErrorf(c.At, "setdefault expected at least 1 argument, got 0")
			}
			if x := errIn(k); x != nil {
				return x
			}
			def := c.Arg(1, "default")
			if def == nil {
				def = &NoneV{Base{c.At}}
			}
			if !ev.setEntry(d, k, def, c.At) {
				return ev.PyErrorf(c.At, "unhashable type: '%s'", k.TypeName())
			}
			return def
		})
	case "pop":
		return Method("dict.pop", func(ev *Evaluator, c *Call) Value {
			k := c.Arg(0, "key")
			if k != nil && !ev.work(c.At, len(d.Keys), elemsPerStep) || !ev.hashWork(c.At, k) {
				return Poison(c.At)
			}
			if v, found, _ := d.get(k); found {
				d.del(k)
				return v
			}
			if def := c.Arg(1, "default"); def != nil {
				return def
			}
			return ev.PyErrorf(c.At, "KeyError: %s", Repr(k))
		})
	}
	return nil
}

// biNext is next(generator[, default]) over a generator expression written
// in the call (`next((b for b in BUCKETS if n <= b), None)`,
// sparse_decode_head64.py's max_splits): the generator is evaluated as a
// list, so its first element, else the default; with no default an empty
// generator raises StopIteration. next() of anything else (an iterator
// another statement holds) is not modelled.
func biNext(ev *Evaluator, c *Call) Value {
	if c.Node == nil || len(c.Node.Args) < 1 || len(c.Node.Args) > 2 || len(c.Kwargs) > 0 || len(c.Args) != len(c.Node.Args) {
		return &OpaqueV{Base{c.At}, "next(...)"}
	}
	if _, ok := c.Node.Args[0].(*syntax.GeneratorExp); !ok {
		return &OpaqueV{Base{c.At}, "next(...)"}
	}
	if IsErr(c.Args[0]) {
		return c.Args[0]
	}
	elts, ok := ev.Iterate(c.Args[0], c.ArgSpans[0])
	if !ok {
		return &OpaqueV{Base{c.At}, "next(...)"}
	}
	if len(elts) > 0 {
		return elts[0]
	}
	if len(c.Args) == 2 {
		return c.Args[1]
	}
	return ev.PyErrorf(c.At, "StopIteration")
}
