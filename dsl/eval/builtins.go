package eval

import (
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

func builtin(name string, fn func(ev *evaluator, c *call) Value) *BuiltinV {
	return &BuiltinV{base{source.NoSpan}, name, fn}
}

func init() {
	builtinNames = map[string]Value{}
	add := func(name string, fn func(ev *evaluator, c *call) Value) {
		builtinNames[name] = builtin(name, fn)
	}
	add("len", biLen)
	add("min", func(ev *evaluator, c *call) Value { return biMinMax(ev, c, "min") })
	add("max", func(ev *evaluator, c *call) Value { return biMinMax(ev, c, "max") })
	add("range", biRange)
	add("tuple", func(ev *evaluator, c *call) Value { return biSeq(ev, c, "tuple") })
	add("list", func(ev *evaluator, c *call) Value { return biSeq(ev, c, "list") })
	add("set", func(ev *evaluator, c *call) Value { return biSeq(ev, c, "set") })
	add("frozenset", func(ev *evaluator, c *call) Value { return biSeq(ev, c, "set") })
	add("dict", biDict)
	add("int", biInt)
	add("float", biFloat)
	add("str", biStr)
	add("bool", func(ev *evaluator, c *call) Value {
		v := c.arg(0, "x")
		if v == nil {
			return &BoolV{base{c.span}, false}
		}
		if isErr(v) {
			return v
		}
		return &BoolV{base{c.span}, truthy(v)}
	})
	add("abs", biAbs)
	add("sum", biSum)
	add("round", biRound)
	add("divmod", func(ev *evaluator, c *call) Value {
		if !ev.checkArgs(c, "divmod", 2, "a", "b") {
			return poison(c.span)
		}
		q := ev.binop("//", c.args[0], c.args[1], c.span, false)
		r := ev.binop("%", c.args[0], c.args[1], c.span, false)
		return &TupleV{base{c.span}, []Value{q, r}}
	})
	add("pow", func(ev *evaluator, c *call) Value {
		if !ev.checkArgs(c, "pow", 2, "base", "exp") {
			return poison(c.span)
		}
		return ev.binop("**", c.args[0], c.args[1], c.span, false)
	})
	add("enumerate", biEnumerate)
	add("zip", biZip)
	add("reversed", func(ev *evaluator, c *call) Value {
		elts, bad := iterArg(ev, c, 0, "reversed")
		if bad != nil {
			return bad
		}
		if !ev.charge(c.span, "list", seqCost(int64(len(elts)), false)) {
			return poison(c.span)
		}
		out := make([]Value, len(elts))
		for i, e := range elts {
			out[len(elts)-1-i] = e
		}
		return &ListV{base{c.span}, out}
	})
	add("sorted", biSorted)
	add("map", biMap)
	add("filter", biFilter)
	add("any", func(ev *evaluator, c *call) Value { return biAnyAll(ev, c, false) })
	add("all", func(ev *evaluator, c *call) Value { return biAnyAll(ev, c, true) })
	add("isinstance", biIsinstance)
	add("getattr", biGetattr)
	add("hasattr", func(ev *evaluator, c *call) Value {
		if !ev.checkArgs(c, "hasattr", 2, "obj", "name") {
			return poison(c.span)
		}
		name, ok := ev.strArg(c.args[1], c.argSpans[1], "attribute name")
		if !ok {
			return poison(c.span)
		}
		if isErr(c.args[0]) {
			return c.args[0]
		}
		v := ev.quietAttr(c.args[0], name, c.argSpans[1], c.span)
		return &BoolV{base{c.span}, v != nil}
	})
	add("print", func(ev *evaluator, c *call) Value { return &NoneV{base{c.span}} })
	add("repr", func(ev *evaluator, c *call) Value {
		v := c.arg(0, "obj")
		if v == nil || isErr(v) {
			return orPoison(v, c.span)
		}
		s, ok := ev.strOf(c.span, v, true)
		if !ok {
			return poison(c.span)
		}
		return &StrV{base{c.span}, s}
	})
	add("slice", func(ev *evaluator, c *call) Value {
		none := &NoneV{base{c.span}}
		switch len(c.args) {
		case 1:
			return &SliceV{base{c.span}, none, c.args[0], none}
		case 2:
			return &SliceV{base{c.span}, c.args[0], c.args[1], none}
		case 3:
			return &SliceV{base{c.span}, c.args[0], c.args[1], c.args[2]}
		}
		return ev.pyErrorf(c.span, "slice expected 1 to 3 arguments, got %d", len(c.args))
	})
	add("chr", func(ev *evaluator, c *call) Value {
		n, ok := ev.intArg(c.arg(0, "i"), c.argSpan(0, "i"), "chr() argument")
		if !ok {
			return poison(c.span)
		}
		return &StrV{base{c.span}, string(rune(n))}
	})
	add("ord", func(ev *evaluator, c *call) Value {
		s, ok := ev.strArg(c.arg(0, "c"), c.argSpan(0, "c"), "ord() argument")
		if !ok || utf8.RuneCountInString(s) != 1 {
			return ev.pyErrorf(c.span, "ord() expected a character")
		}
		return &IntV{base{c.span}, int64([]rune(s)[0])}
	})
	add("hex", func(ev *evaluator, c *call) Value {
		n, ok := ev.intArg(c.arg(0, "x"), c.argSpan(0, "x"), "hex() argument")
		if !ok {
			return poison(c.span)
		}
		if n < 0 {
			return &StrV{base{c.span}, "-0x" + strconv.FormatInt(-n, 16)}
		}
		return &StrV{base{c.span}, "0x" + strconv.FormatInt(n, 16)}
	})
	for _, name := range []string{"Exception", "ValueError", "TypeError", "RuntimeError", "KeyError",
		"IndexError", "NotImplementedError", "AssertionError", "AttributeError", "ZeroDivisionError",
		"object", "super", "type", "id", "open", "iter", "next", "callable", "vars", "locals", "globals",
		"property", "staticmethod", "classmethod", "setattr", "format", "bytes", "complex", "input", "exit",
		"Warning", "UserWarning", "DeprecationWarning", "RuntimeWarning", "StopIteration", "OSError",
		"ImportError", "ModuleNotFoundError", "FileNotFoundError", "LookupError", "ArithmeticError",
		"OverflowError", "BaseException", "SystemExit", "KeyboardInterrupt", "memoryview", "bytearray",
		"issubclass", "hash", "dir", "delattr", "breakpoint", "compile", "eval", "exec", "help", "aiter", "anext"} {
		n := name
		builtinNames[n] = &OpaqueV{base{source.NoSpan}, n}
	}
	builtinNames["NotImplemented"] = &OpaqueV{base{source.NoSpan}, "NotImplemented"}
	// Not "__main__": `if __name__ == "__main__":` blocks run tests.
	builtinNames["__name__"] = &StrV{base{source.NoSpan}, "tilels_module"}
	builtinNames["__file__"] = &OpaqueV{base{source.NoSpan}, "__file__"}
}

func orPoison(v Value, span source.Span) Value {
	if v != nil {
		return v
	}
	return poison(span)
}

// iterArg materializes iterable argument i.
func iterArg(ev *evaluator, c *call, i int, fname string) ([]Value, Value) {
	if i >= len(c.args) {
		return nil, ev.pyErrorf(c.span, "%s() expected an iterable argument", fname)
	}
	v := c.args[i]
	if isErr(v) {
		return nil, v
	}
	elts, ok := ev.iterate(v, c.argSpans[i])
	if !ok {
		return nil, ev.pyErrorf(c.argSpans[i], "'%s' object is not iterable", v.TypeName())
	}
	return elts, nil
}

// scanArg is iterArg for a function that goes over the elements without
// building a container of them (sum, min, any): the elements are charged
// as work (budget.go; what builds a container is charged by its size).
func scanArg(ev *evaluator, c *call, i int, fname string) ([]Value, Value) {
	elts, bad := iterArg(ev, c, i, fname)
	if bad == nil && !ev.work(c.span, len(elts), elemsPerStep) {
		return nil, poison(c.span)
	}
	return elts, bad
}

func biLen(ev *evaluator, c *call) Value {
	if !ev.checkArgs(c, "len", 1, "obj") {
		return poison(c.span)
	}
	v := c.args[0]
	if isErr(v) {
		return v
	}
	switch v := v.(type) {
	case *TupleV:
		return &IntV{base{c.span}, int64(len(v.Elts))}
	case *ListV:
		return &IntV{base{c.span}, int64(len(v.Elts))}
	case *DictV:
		return &IntV{base{c.span}, int64(len(v.Keys))}
	case *StrV:
		if !ev.work(c.span, len(v.V), bytesPerStep) {
			return poison(c.span)
		}
		return &IntV{base{c.span}, int64(utf8.RuneCountInString(v.V))}
	case *RangeV:
		return &IntV{base{c.span}, rangeLen(v)}
	case *BufferV:
		return &IntV{base{c.span}, int64(len(v.B.Shape))}
	}
	return ev.pyErrorf(c.argSpans[0], "object of type '%s' has no len()", v.TypeName())
}

func biMinMax(ev *evaluator, c *call, which string) Value {
	var elts []Value
	if len(c.args) == 1 {
		var bad Value
		elts, bad = scanArg(ev, c, 0, which)
		if bad != nil {
			return bad
		}
	} else {
		elts = c.args
	}
	if e := firstErr(elts...); e != nil {
		return e
	}
	if len(elts) == 0 {
		if d, ok := c.kw("default"); ok {
			return d
		}
		return ev.pyErrorf(c.span, "%s() arg is an empty sequence", which)
	}
	key, _ := c.kw("key")
	best := elts[0]
	bestKey := best
	if key != nil {
		bestKey = ev.callValue(key, &call{span: c.span, args: []Value{best}, argSpans: []source.Span{c.span}})
	}
	for _, e := range elts[1:] {
		k := e
		if key != nil {
			k = ev.callValue(key, &call{span: c.span, args: []Value{e}, argSpans: []source.Span{c.span}})
		}
		if p := propagate(c.span, k, bestKey); p != nil {
			return p
		}
		_, kd := k.(*ExprV)
		_, bd := bestKey.(*ExprV)
		if kd || bd {
			if key != nil {
				return ev.pyErrorf(c.span, "%s() with key= over device values", which)
			}
			op := ir.Min
			if which == "max" {
				op = ir.Max
			}
			a, ok1 := ev.toIR(bestKey, ir.DataType{})
			b, ok2 := ev.toIR(k, exprType(a))
			if !ok1 || !ok2 {
				return ev.pyErrorf(c.span, "%s() of %s and %s", which, bestKey.TypeName(), k.TypeName())
			}
			best = &ExprV{base: base{c.span}, E: mkBin(op, a, b, c.span)}
			bestKey = best
			continue
		}
		r, ok := pyCompare(k, bestKey)
		if !ok {
			return ev.pyErrorf(c.span, "'<' not supported between instances of '%s' and '%s'", k.TypeName(), bestKey.TypeName())
		}
		if (which == "min" && r < 0) || (which == "max" && r > 0) {
			best, bestKey = e, k
		}
	}
	return best
}

func biRange(ev *evaluator, c *call) Value {
	if len(c.args) < 1 || len(c.args) > 3 || len(c.kwargs) > 0 {
		return ev.pyErrorf(c.span, "range expected 1 to 3 integer arguments, got %d", len(c.args))
	}
	if e := firstErr(c.args...); e != nil {
		return e
	}
	device := false
	for _, a := range c.args {
		if _, ok := a.(*ExprV); ok {
			if _, ok := toInt(a); !ok {
				device = true
			}
		}
	}
	if device {
		return ev.loopValue("range", ir.Serial, c, c.args)
	}
	var ns [3]int64
	for i, a := range c.args {
		n, ok := toInt(a)
		if !ok {
			return ev.pyErrorf(c.argSpans[i], "'%s' object cannot be interpreted as an integer", a.TypeName())
		}
		ns[i] = n
	}
	r := &RangeV{base: base{c.span}, Step: 1}
	switch len(c.args) {
	case 1:
		r.Stop = ns[0]
	case 2:
		r.Start, r.Stop = ns[0], ns[1]
	case 3:
		r.Start, r.Stop, r.Step = ns[0], ns[1], ns[2]
		if r.Step == 0 {
			return ev.pyErrorf(c.argSpans[2], "range() arg 3 must not be zero")
		}
	}
	return r
}

// rangeLoop turns a constant range into a device serial loop (a step
// other than 1 is kept in LoopV.Step; see deviceLoop).
func rangeLoop(r *RangeV) *LoopV {
	n := rangeLen(r)
	return &LoopV{base: base{r.span}, What: "range", Kind: ir.Serial,
		Mins:    []ir.Expr{&ir.IntImm{Value: r.Start, Type: ir.Int32, Span: r.span}},
		Extents: []ir.Expr{&ir.IntImm{Value: n, Type: ir.Int32, Span: r.span}},
		Step:    r.Step}
}

func biSeq(ev *evaluator, c *call, kind string) Value {
	if len(c.args) == 0 {
		if kind == "tuple" {
			return &TupleV{base{c.span}, nil}
		}
		return &ListV{base{c.span}, nil}
	}
	elts, bad := iterArg(ev, c, 0, kind)
	if bad != nil {
		return bad
	}
	if t, ok := c.args[0].(*TupleV); ok && kind == "tuple" {
		return &TupleV{base{c.span}, t.Elts} // immutable: shared
	}
	// The elements may be another container's (iterate): copied.
	if !ev.charge(c.span, kind, seqCost(int64(len(elts)), false)) {
		return poison(c.span)
	}
	elts = append([]Value(nil), elts...)
	switch kind {
	case "tuple":
		return &TupleV{base{c.span}, elts}
	case "set":
		if !ev.hashWork(c.span, elts...) {
			return poison(c.span)
		}
		return &ListV{base{c.span}, dedup(elts)}
	}
	return &ListV{base{c.span}, elts}
}

func biDict(ev *evaluator, c *call) Value {
	d := newDict(c.span)
	if len(c.args) > 0 {
		switch src := c.args[0].(type) {
		case *DictV:
			for i := range src.Keys {
				ev.setEntry(d, src.Keys[i], src.Vals[i], c.span)
			}
		default:
			if isErr(src) {
				return src
			}
			elts, bad := iterArg(ev, c, 0, "dict")
			if bad != nil {
				return bad
			}
			for _, e := range elts {
				kv := seqElts(e)
				if s, ok := e.(*StrV); ok && utf8.RuneCountInString(s.V) == 2 {
					r, n := utf8.DecodeRuneInString(s.V)
					kv = []Value{&StrV{base{s.span}, string(r)}, &StrV{base{s.span}, s.V[n:]}}
				}
				if len(kv) != 2 {
					return ev.pyErrorf(c.argSpans[0], "dictionary update sequence element has length %d; 2 is required", len(kv))
				}
				if !ev.setEntry(d, kv[0], kv[1], c.span) {
					return ev.pyErrorf(c.argSpans[0], "unhashable type: '%s'", kv[0].TypeName())
				}
			}
		}
	}
	for _, k := range c.kwargs {
		ev.setEntry(d, &StrV{base{k.span}, k.name}, k.v, k.span)
	}
	if ev.halted {
		return poison(c.span)
	}
	return d
}

func biInt(ev *evaluator, c *call) Value {
	v := c.arg(0, "x")
	if v == nil {
		return &IntV{base{c.span}, 0}
	}
	if isErr(v) {
		return v
	}
	switch x := v.(type) {
	case *IntV:
		return x
	case *BoolV:
		n, _ := toInt(x)
		return &IntV{base{c.span}, n}
	case *FloatV:
		if math.IsNaN(x.V) || math.IsInf(x.V, 0) || math.Abs(x.V) > 9e18 {
			return ev.pyErrorf(c.span, "cannot convert float %s to integer", pyFloat(x.V))
		}
		return &IntV{base{c.span}, int64(x.V)}
	case *StrV:
		b := 10
		if bv := c.arg(1, "base"); bv != nil {
			n, ok := toInt(bv)
			if !ok {
				return ev.pyErrorf(c.span, "int() base must be an integer")
			}
			b = int(n)
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(x.V), "_", ""), b, 64)
		if err != nil {
			return ev.pyErrorf(c.span, "invalid literal for int() with base %d: %s", b, Repr(x))
		}
		return &IntV{base{c.span}, n}
	case *ExprV:
		if n, ok := toInt(x); ok {
			return &IntV{base{c.span}, n}
		}
		return ev.pyErrorf(c.argSpans[0], "cannot convert device value `%s` to a Python int", ExprString(x.E))
	case *EnumV:
		return &IntV{base{c.span}, x.V}
	}
	return ev.pyErrorf(c.span, "int() argument must be a string or a number, not '%s'", v.TypeName())
}

func biFloat(ev *evaluator, c *call) Value {
	v := c.arg(0, "x")
	if v == nil {
		return &FloatV{base{c.span}, 0}
	}
	if isErr(v) {
		return v
	}
	if s, ok := v.(*StrV); ok {
		t := strings.ToLower(strings.TrimSpace(s.V))
		switch t {
		case "inf", "+inf", "infinity":
			return &FloatV{base{c.span}, math.Inf(1)}
		case "-inf", "-infinity":
			return &FloatV{base{c.span}, math.Inf(-1)}
		case "nan":
			return &FloatV{base{c.span}, math.NaN()}
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return ev.pyErrorf(c.span, "could not convert string to float: %s", Repr(s))
		}
		return &FloatV{base{c.span}, f}
	}
	if f, ok := toFloat(v); ok {
		return &FloatV{base{c.span}, f}
	}
	return ev.pyErrorf(c.span, "float() argument must be a string or a number, not '%s'", v.TypeName())
}

func biStr(ev *evaluator, c *call) Value {
	v := c.arg(0, "object")
	if v == nil {
		return &StrV{base{c.span}, ""}
	}
	if isErr(v) {
		return v
	}
	s, ok := ev.strOf(c.span, v, false)
	if !ok {
		return poison(c.span)
	}
	return &StrV{base{c.span}, s}
}

func biAbs(ev *evaluator, c *call) Value {
	if !ev.checkArgs(c, "abs", 1, "x") {
		return poison(c.span)
	}
	v := c.args[0]
	switch x := v.(type) {
	case *IntV:
		if x.V < 0 {
			return ev.unary("-", x, c.span)
		}
		return x
	case *BoolV:
		n, _ := toInt(x)
		return &IntV{base{c.span}, n}
	case *FloatV:
		return &FloatV{base{c.span}, math.Abs(x.V)}
	case *ExprV:
		return &ExprV{base: base{c.span}, E: &ir.Call{Op: "abs", Args: []ir.Expr{x.E}, Type: exprType(x.E), Span: c.span}}
	}
	if isErr(v) {
		return v
	}
	return ev.pyErrorf(c.span, "bad operand type for abs(): '%s'", v.TypeName())
}

func biSum(ev *evaluator, c *call) Value {
	elts, bad := scanArg(ev, c, 0, "sum")
	if bad != nil {
		return bad
	}
	var acc Value = &IntV{base{c.span}, 0}
	if s := c.arg(1, "start"); s != nil {
		acc = s
	}
	for _, e := range elts {
		acc = ev.binop("+", acc, e, c.span, false)
		if isErr(acc) {
			return acc
		}
	}
	return acc
}

func biRound(ev *evaluator, c *call) Value {
	v := c.arg(0, "number")
	if v == nil || isErr(v) {
		return orPoison(v, c.span)
	}
	f, ok := toFloat(v)
	if !ok {
		return ev.pyErrorf(c.span, "type %s doesn't define __round__ method", v.TypeName())
	}
	if nd := c.arg(1, "ndigits"); nd != nil {
		if _, none := nd.(*NoneV); !none {
			n, ok := toInt(nd)
			if !ok {
				return ev.pyErrorf(c.span, "ndigits must be an integer")
			}
			p := math.Pow(10, float64(n))
			return &FloatV{base{c.span}, math.RoundToEven(f*p) / p}
		}
	}
	if isIntLike(v) {
		n, _ := toInt(v)
		return &IntV{base{c.span}, n}
	}
	return &IntV{base{c.span}, int64(math.RoundToEven(f))}
}

func biEnumerate(ev *evaluator, c *call) Value {
	elts, bad := iterArg(ev, c, 0, "enumerate")
	if bad != nil {
		return bad
	}
	start := int64(0)
	if s := c.arg(1, "start"); s != nil {
		n, ok := ev.intArg(s, c.argSpan(1, "start"), "enumerate start")
		if !ok {
			return poison(c.span)
		}
		start = n
	}
	// A list of fresh (i, e) pairs.
	if !ev.charge(c.span, "list", addCost(seqCost(int64(len(elts)), true), mulCost(int64(len(elts)), seqCost(2, true)))) {
		return poison(c.span)
	}
	out := make([]Value, len(elts))
	for i, e := range elts {
		out[i] = &TupleV{base{c.span}, []Value{&IntV{base{c.span}, start + int64(i)}, e}}
	}
	return &ListV{base{c.span}, out}
}

func biZip(ev *evaluator, c *call) Value {
	var lists [][]Value
	n := -1
	for i := range c.args {
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
	if !ev.charge(c.span, "list", addCost(seqCost(int64(n), true), mulCost(int64(n), seqCost(int64(len(lists)), false)))) {
		return poison(c.span)
	}
	out := make([]Value, n)
	for i := 0; i < n; i++ {
		t := make([]Value, len(lists))
		for j := range lists {
			t[j] = lists[j][i]
		}
		out[i] = &TupleV{base{c.span}, t}
	}
	return &ListV{base{c.span}, out}
}

func biSorted(ev *evaluator, c *call) Value {
	elts, bad := iterArg(ev, c, 0, "sorted")
	if bad != nil {
		return bad
	}
	// The copy, the keys, the order and the result; the comparisons
	// (n log n) as work.
	if !ev.charge(c.span, "list", mulCost(seqCost(int64(len(elts)), false), 4)) ||
		!ev.work(c.span, len(elts)*bits.Len(uint(len(elts))), elemsPerStep) {
		return poison(c.span)
	}
	out := append([]Value(nil), elts...)
	keys := out
	if key, ok := c.kw("key"); ok {
		if _, none := key.(*NoneV); !none {
			keys = make([]Value, len(out))
			for i, e := range out {
				keys[i] = ev.callValue(key, &call{span: c.span, args: []Value{e}, argSpans: []source.Span{c.span}})
			}
		}
	}
	if e := firstErr(keys...); e != nil {
		return e
	}
	rev := false
	if r, ok := c.kw("reverse"); ok {
		rev = truthy(r)
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
		return ev.pyErrorf(c.span, "sorted() of values that cannot be compared")
	}
	res := make([]Value, len(out))
	for i, j := range idx {
		res[i] = out[j]
	}
	return &ListV{base{c.span}, res}
}

func biMap(ev *evaluator, c *call) Value {
	if len(c.args) < 2 {
		return ev.pyErrorf(c.span, "map() must have at least two arguments")
	}
	z := biZip(ev, &call{span: c.span, args: c.args[1:], argSpans: c.argSpans[1:]})
	l, ok := z.(*ListV)
	if !ok {
		return z
	}
	if !ev.charge(c.span, "list", seqCost(int64(len(l.Elts)), false)) {
		return poison(c.span)
	}
	out := make([]Value, len(l.Elts))
	for i, t := range l.Elts {
		args := t.(*TupleV).Elts
		out[i] = ev.callValue(c.args[0], &call{span: c.span, args: args, argSpans: spansOf(args)})
	}
	return &ListV{base{c.span}, out}
}

func biFilter(ev *evaluator, c *call) Value {
	elts, bad := iterArg(ev, c, 1, "filter")
	if bad != nil {
		return bad
	}
	var out []Value
	for _, e := range elts {
		keep := e
		if _, none := c.args[0].(*NoneV); !none {
			keep = ev.callValue(c.args[0], &call{span: c.span, args: []Value{e}, argSpans: []source.Span{c.span}})
		}
		if isErr(keep) {
			return keep
		}
		if truthy(keep) {
			out = append(out, e)
		}
	}
	return ev.mkList(c.span, out, false)
}

func biAnyAll(ev *evaluator, c *call, all bool) Value {
	elts, bad := scanArg(ev, c, 0, "any")
	if bad != nil {
		return bad
	}
	for _, e := range elts {
		if isErr(e) {
			return e
		}
		if truthy(e) != all {
			return &BoolV{base{c.span}, !all}
		}
	}
	return &BoolV{base{c.span}, all}
}

func biIsinstance(ev *evaluator, c *call) Value {
	if !ev.checkArgs(c, "isinstance", 2, "obj", "class") {
		return poison(c.span)
	}
	v, t := c.args[0], c.args[1]
	if isErr(v) {
		return v
	}
	types := []Value{t}
	if tv, ok := t.(*TupleV); ok {
		types = tv.Elts
	}
	for _, ty := range types {
		if cls, ok := ty.(*ClassV); ok { // class.go
			if cls == objectClass {
				return &BoolV{base{c.span}, true}
			}
			if inst, ok := v.(*InstanceV); ok && inst.Class.isSubclassOf(cls) {
				return &BoolV{base{c.span}, true}
			}
			if e, ok := v.(*EnumV); ok && e.Type == cls.Name {
				return &BoolV{base{c.span}, true}
			}
			continue
		}
		b, ok := ty.(*BuiltinV)
		if !ok {
			return &OpaqueV{base{c.span}, "isinstance(...)"}
		}
		var match bool
		switch b.Name {
		case "int":
			match = isIntLike(v)
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
			return &OpaqueV{base{c.span}, "isinstance(...)"}
		}
		if match {
			return &BoolV{base{c.span}, true}
		}
	}
	return &BoolV{base{c.span}, false}
}

func biGetattr(ev *evaluator, c *call) Value {
	if len(c.args) < 2 || len(c.args) > 3 {
		return ev.pyErrorf(c.span, "getattr expected 2 or 3 arguments, got %d", len(c.args))
	}
	name, ok := ev.strArg(c.args[1], c.argSpans[1], "attribute name")
	if !ok {
		return poison(c.span)
	}
	if len(c.args) == 3 {
		if isErr(c.args[0]) {
			return c.args[0]
		}
		if v := ev.quietAttr(c.args[0], name, c.argSpans[1], c.span); v != nil {
			return v
		}
		return c.args[2]
	}
	return ev.getAttr(c.args[0], name, c.argSpans[1], c.span)
}

// ---- methods of Python values ----

func method(name string, fn func(ev *evaluator, c *call) Value) *BuiltinV {
	return builtin(name, fn)
}

func (ev *evaluator) strMethod(s *StrV, name string) Value {
	switch name {
	case "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "count", "find", "index", "isdigit", "isalpha", "isupper", "islower":
		// Methods that scan s: charged by its length (the others build a
		// str about as long, charged to the value budget).
		return charged(ev.strMethodScan(s, name), func() int { return len(s.V) }, bytesPerStep)
	}
	return ev.strMethodScan(s, name)
}

func (ev *evaluator) strMethodScan(s *StrV, name string) Value {
	switch name {
	case "join":
		return method("str.join", func(ev *evaluator, c *call) Value {
			elts, bad := iterArg(ev, c, 0, "join")
			if bad != nil {
				return bad
			}
			parts := make([]string, len(elts))
			n := mulCost(int64(len(s.V)), int64(max(len(elts)-1, 0)))
			for i, e := range elts {
				x, ok := e.(*StrV)
				if !ok {
					if isErr(e) {
						return e
					}
					return ev.pyErrorf(c.span, "sequence item %d: expected str instance, %s found", i, e.TypeName())
				}
				parts[i] = x.V
				n = addCost(n, int64(len(x.V)))
			}
			if !ev.charge(c.span, "str", strCost(n)) {
				return poison(c.span)
			}
			return &StrV{base{c.span}, strings.Join(parts, s.V)}
		})
	case "format":
		return method("str.format", func(ev *evaluator, c *call) Value { return ev.strFormat(s.V, c) })
	case "upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize":
		return method("str."+name, func(ev *evaluator, c *call) Value {
			cut := " \t\n\r\v\f"
			if a := c.arg(0, "chars"); a != nil {
				if cs, ok := a.(*StrV); ok {
					cut = cs.V
				}
			}
			switch name {
			case "strip":
				return &StrV{base{c.span}, strings.Trim(s.V, cut)} // a substring: nothing new
			case "lstrip":
				return &StrV{base{c.span}, strings.TrimLeft(s.V, cut)}
			case "rstrip":
				return &StrV{base{c.span}, strings.TrimRight(s.V, cut)}
			}
			// Case mapping makes a string about as long as s: charged first.
			if !ev.charge(c.span, "str", strCost(int64(len(s.V)))) {
				return poison(c.span)
			}
			switch name {
			case "upper":
				return &StrV{base{c.span}, strings.ToUpper(s.V)}
			case "lower":
				return &StrV{base{c.span}, strings.ToLower(s.V)}
			case "capitalize":
				if s.V == "" {
					return s
				}
				return &StrV{base{c.span}, strings.ToUpper(s.V[:1]) + strings.ToLower(s.V[1:])}
			}
			return &StrV{base{c.span}, strings.ToTitle(s.V)}
		})
	case "startswith", "endswith":
		return method("str."+name, func(ev *evaluator, c *call) Value {
			a := c.arg(0, "prefix")
			cands := []Value{a}
			if t, ok := a.(*TupleV); ok {
				cands = t.Elts
			}
			for _, x := range cands {
				p, ok := x.(*StrV)
				if !ok {
					return ev.pyErrorf(c.span, "%s arg must be str or a tuple of str", name)
				}
				if (name == "startswith" && strings.HasPrefix(s.V, p.V)) || (name == "endswith" && strings.HasSuffix(s.V, p.V)) {
					return &BoolV{base{c.span}, true}
				}
			}
			return &BoolV{base{c.span}, false}
		})
	case "replace":
		return method("str.replace", func(ev *evaluator, c *call) Value {
			a, ok1 := c.arg(0, "old").(*StrV)
			b, ok2 := c.arg(1, "new").(*StrV)
			if !ok1 || !ok2 {
				return ev.pyErrorf(c.span, "replace() arguments must be str")
			}
			// The result's length is known before it is built.
			n := int64(len(s.V))
			if len(b.V) > len(a.V) {
				k := int64(strings.Count(s.V, a.V))
				n = addCost(n, mulCost(k, int64(len(b.V)-len(a.V))))
			}
			if !ev.charge(c.span, "str", strCost(n)) {
				return poison(c.span)
			}
			return &StrV{base{c.span}, strings.ReplaceAll(s.V, a.V, b.V)}
		})
	case "split":
		return method("str.split", func(ev *evaluator, c *call) Value {
			var parts []string
			if sep, ok := c.arg(0, "sep").(*StrV); ok {
				parts = strings.Split(s.V, sep.V)
			} else {
				parts = strings.Fields(s.V)
			}
			if !ev.charge(c.span, "list", seqCost(int64(len(parts)), true)) {
				return poison(c.span)
			}
			out := make([]Value, len(parts))
			for i, p := range parts {
				out[i] = &StrV{base{c.span}, p} // substrings of s
			}
			return &ListV{base{c.span}, out}
		})
	case "count", "find", "index":
		return method("str."+name, func(ev *evaluator, c *call) Value {
			sub, ok := c.arg(0, "sub").(*StrV)
			if !ok {
				return ev.pyErrorf(c.span, "%s() argument must be str", name)
			}
			switch name {
			case "count":
				return &IntV{base{c.span}, int64(strings.Count(s.V, sub.V))}
			case "find":
				return &IntV{base{c.span}, int64(strings.Index(s.V, sub.V))}
			}
			i := strings.Index(s.V, sub.V)
			if i < 0 {
				return ev.pyErrorf(c.span, "substring not found")
			}
			return &IntV{base{c.span}, int64(i)}
		})
	case "isdigit", "isalpha", "isupper", "islower":
		return method("str."+name, func(ev *evaluator, c *call) Value {
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
			return &BoolV{base{c.span}, ok}
		})
	case "zfill":
		return method("str.zfill", func(ev *evaluator, c *call) Value {
			n, ok := ev.intArg(c.arg(0, "width"), c.argSpan(0, "width"), "zfill width")
			if !ok {
				return poison(c.span)
			}
			pad := n - int64(len(s.V))
			if pad <= 0 {
				return s
			}
			if !ev.charge(c.span, "str", strCost(n)) {
				return poison(c.span)
			}
			sign, digits := "", s.V
			if digits != "" && (digits[0] == '+' || digits[0] == '-') {
				sign, digits = digits[:1], digits[1:]
			}
			return &StrV{base{c.span}, sign + strings.Repeat("0", int(pad)) + digits}
		})
	case "ljust", "rjust", "center":
		return method("str."+name, func(ev *evaluator, c *call) Value {
			n, ok := ev.intArg(c.arg(0, "width"), c.argSpan(0, "width"), name+" width")
			if !ok {
				return poison(c.span)
			}
			fill := " "
			if a := c.arg(1, "fillchar"); a != nil {
				f, ok := a.(*StrV)
				if !ok || utf8.RuneCountInString(f.V) != 1 {
					return ev.pyErrorf(c.argSpan(1, "fillchar"), "The fill character must be exactly one character long")
				}
				fill = f.V
			}
			pad := n - int64(utf8.RuneCountInString(s.V))
			if pad <= 0 {
				return s
			}
			if !ev.charge(c.span, "str", strCost(addCost(int64(len(s.V)), mulCost(pad, int64(len(fill)))))) {
				return poison(c.span)
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
			return &StrV{base{c.span}, strings.Repeat(fill, int(left)) + s.V + strings.Repeat(fill, int(pad-left))}
		})
	}
	return nil
}

// strFormat implements str.format with {} / {0} / {name} fields and
// format specs. Like percentFormat it charges the format's length, then
// each converted field before it is appended.
func (ev *evaluator) strFormat(f string, c *call) Value {
	if !ev.charge(c.span, "str", strCost(int64(len(f)))) {
		return poison(c.span)
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
			return ev.pyErrorf(c.span, "single '{' encountered in format string")
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
			v = c.arg(auto, "")
			auto++
		} else if n, err := strconv.Atoi(field); err == nil {
			v = c.arg(n, "")
		} else {
			v, _ = c.kw(field)
		}
		if v == nil {
			return ev.pyErrorf(c.span, "format field {%s} has no argument", field)
		}
		if isErr(v) {
			return v
		}
		if conv == 'r' || conv == 's' {
			s, ok := ev.strOf(c.span, v, conv == 'r')
			if !ok {
				return poison(c.span)
			}
			v = &StrV{base{c.span}, s}
		}
		s, ok := ev.formatValue(v, spec, c.span)
		if ev.halted {
			return poison(c.span)
		}
		if !ok {
			return ev.pyErrorf(c.span, "unsupported format spec %q for %s", spec, v.TypeName())
		}
		if !ev.charge(c.span, "str", int64(len(s))) {
			return poison(c.span)
		}
		b.WriteString(s)
	}
	return &StrV{base{c.span}, b.String()}
}

func (ev *evaluator) listMethod(l *ListV, name string) Value {
	switch name {
	case "insert", "pop", "index", "count", "remove", "reverse":
		// Methods that search or move the elements: charged by their
		// number.
		return charged(ev.listMethodN(l, name), func() int { return len(l.Elts) }, elemsPerStep)
	}
	return ev.listMethodN(l, name)
}

func (ev *evaluator) listMethodN(l *ListV, name string) Value {
	switch name {
	case "append":
		return method("list.append", func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "append", 1, "object") {
				return poison(c.span)
			}
			if !ev.charge(c.span, "list", costSlot) {
				return poison(c.span)
			}
			l.Elts = append(l.Elts, c.args[0])
			return &NoneV{base{c.span}}
		})
	case "extend":
		return method("list.extend", func(ev *evaluator, c *call) Value {
			if len(c.args) == 0 {
				return ev.pyErrorf(c.span, "extend() expected an iterable argument")
			}
			if isErr(c.args[0]) {
				return c.args[0]
			}
			if !ev.extend(l, c.args[0], c.span) {
				if ev.halted {
					return poison(c.span)
				}
				return ev.pyErrorf(c.argSpans[0], "'%s' object is not iterable", c.args[0].TypeName())
			}
			return &NoneV{base{c.span}}
		})
	case "insert":
		return method("list.insert", func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "insert", 2, "index", "object") {
				return poison(c.span)
			}
			i, ok := ev.intArg(c.args[0], c.argSpans[0], "insert index")
			if !ok {
				return poison(c.span)
			}
			n := int64(len(l.Elts))
			if i < 0 {
				i = max(i+n, 0)
			}
			i = min(i, n)
			if !ev.charge(c.span, "list", costSlot) {
				return poison(c.span)
			}
			l.Elts = append(l.Elts[:i:i], append([]Value{c.args[1]}, l.Elts[i:]...)...)
			return &NoneV{base{c.span}}
		})
	case "pop":
		return method("list.pop", func(ev *evaluator, c *call) Value {
			i := int64(-1)
			if a := c.arg(0, "index"); a != nil {
				n, ok := ev.intArg(a, c.argSpan(0, "index"), "pop index")
				if !ok {
					return poison(c.span)
				}
				i = n
			}
			j, ok := normIndex(i, len(l.Elts))
			if !ok {
				return ev.pyErrorf(c.span, "pop index out of range")
			}
			v := l.Elts[j]
			l.Elts = append(l.Elts[:j:j], l.Elts[j+1:]...)
			return v
		})
	case "index", "count", "remove":
		return method("list."+name, func(ev *evaluator, c *call) Value {
			x := c.arg(0, "value")
			n := 0
			for i, e := range l.Elts {
				if pyEqual(e, x) {
					switch name {
					case "index":
						return &IntV{base{c.span}, int64(i)}
					case "remove":
						l.Elts = append(l.Elts[:i:i], l.Elts[i+1:]...)
						return &NoneV{base{c.span}}
					}
					n++
				}
			}
			if name == "count" {
				return &IntV{base{c.span}, int64(n)}
			}
			return ev.pyErrorf(c.span, "%s is not in list", Repr(x))
		})
	case "copy":
		return method("list.copy", func(ev *evaluator, c *call) Value {
			if !ev.charge(c.span, "list", seqCost(int64(len(l.Elts)), false)) {
				return poison(c.span)
			}
			return &ListV{base{c.span}, append([]Value(nil), l.Elts...)}
		})
	case "clear":
		return method("list.clear", func(ev *evaluator, c *call) Value {
			l.Elts = nil
			return &NoneV{base{c.span}}
		})
	case "reverse":
		return method("list.reverse", func(ev *evaluator, c *call) Value {
			for i, j := 0, len(l.Elts)-1; i < j; i, j = i+1, j-1 {
				l.Elts[i], l.Elts[j] = l.Elts[j], l.Elts[i]
			}
			return &NoneV{base{c.span}}
		})
	case "sort":
		return method("list.sort", func(ev *evaluator, c *call) Value {
			c2 := *c
			c2.args = []Value{l}
			c2.argSpans = []source.Span{c.span}
			s := biSorted(ev, &c2)
			if sl, ok := s.(*ListV); ok {
				l.Elts = sl.Elts
				return &NoneV{base{c.span}}
			}
			return s
		})
	}
	return nil
}

func (ev *evaluator) tupleMethod(t *TupleV, name string) Value {
	switch name {
	case "index", "count":
		return charged(method("tuple."+name, func(ev *evaluator, c *call) Value {
			x := c.arg(0, "value")
			n := 0
			for i, e := range t.Elts {
				if pyEqual(e, x) {
					if name == "index" {
						return &IntV{base{c.span}, int64(i)}
					}
					n++
				}
			}
			if name == "count" {
				return &IntV{base{c.span}, int64(n)}
			}
			return ev.pyErrorf(c.span, "tuple.index(x): x not in tuple")
		}), func() int { return len(t.Elts) }, elemsPerStep)
	}
	return nil
}

func (ev *evaluator) dictMethod(d *DictV, name string) Value {
	switch name {
	case "get":
		return method("dict.get", func(ev *evaluator, c *call) Value {
			k := c.arg(0, "key")
			if k == nil {
				return ev.pyErrorf(c.span, "get expected at least 1 argument, got 0")
			}
			if isErr(k) {
				return k
			}
			if !ev.hashWork(c.span, k) {
				return poison(c.span)
			}
			v, found, _ := d.get(k)
			if found {
				return v
			}
			if def := c.arg(1, "default"); def != nil {
				return def
			}
			return &NoneV{base{c.span}}
		})
	case "items", "keys", "values":
		return method("dict."+name, func(ev *evaluator, c *call) Value {
			cost := seqCost(int64(len(d.Keys)), false)
			if name == "items" {
				cost = addCost(cost, mulCost(int64(len(d.Keys)), seqCost(2, false)))
			}
			if !ev.charge(c.span, "list", cost) {
				return poison(c.span)
			}
			out := make([]Value, len(d.Keys))
			for i := range d.Keys {
				switch name {
				case "items":
					out[i] = &TupleV{base{c.span}, []Value{d.Keys[i], d.Vals[i]}}
				case "keys":
					out[i] = d.Keys[i]
				default:
					out[i] = d.Vals[i]
				}
			}
			return &ListV{base{c.span}, out}
		})
	case "update":
		return method("dict.update", func(ev *evaluator, c *call) Value {
			src := biDict(ev, c)
			if s, ok := src.(*DictV); ok {
				for i := range s.Keys {
					ev.setEntry(d, s.Keys[i], s.Vals[i], c.span)
				}
			}
			if ev.halted {
				return poison(c.span)
			}
			return &NoneV{base{c.span}}
		})
	case "copy":
		return method("dict.copy", func(ev *evaluator, c *call) Value {
			n := newDict(c.span)
			for i := range d.Keys {
				ev.setEntry(n, d.Keys[i], d.Vals[i], c.span)
			}
			if ev.halted {
				return poison(c.span)
			}
			return n
		})
	case "setdefault":
		return method("dict.setdefault", func(ev *evaluator, c *call) Value {
			k := c.arg(0, "key")
			if k != nil && !ev.hashWork(c.span, k) {
				return poison(c.span)
			}
			if v, found, _ := d.get(k); found {
				return v
			}
			if k == nil {
				return ev.pyErrorf(c.span, "setdefault expected at least 1 argument, got 0")
			}
			if x := errIn(k); x != nil {
				return x
			}
			def := c.arg(1, "default")
			if def == nil {
				def = &NoneV{base{c.span}}
			}
			if !ev.setEntry(d, k, def, c.span) {
				return ev.pyErrorf(c.span, "unhashable type: '%s'", k.TypeName())
			}
			return def
		})
	case "pop":
		return method("dict.pop", func(ev *evaluator, c *call) Value {
			k := c.arg(0, "key")
			if k != nil && !ev.work(c.span, len(d.Keys), elemsPerStep) || !ev.hashWork(c.span, k) {
				return poison(c.span)
			}
			if v, found, _ := d.get(k); found {
				d.del(k)
				return v
			}
			if def := c.arg(1, "default"); def != nil {
				return def
			}
			return ev.pyErrorf(c.span, "KeyError: %s", Repr(k))
		})
	}
	return nil
}
