package eval

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// expr evaluates e in fr.
func (ev *Evaluator) expr(fr *frame, e syntax.Expr) Value {
	if e == nil {
		return &NoneV{Base{source.NoSpan}}
	}
	sp := e.Span()
	if !ev.step(sp) {
		return Poison(sp)
	}
	switch e := e.(type) {
	case *syntax.Name:
		return ev.lookupName(fr, e)
	case *syntax.Constant:
		return ev.constant(e)
	case *syntax.JoinedStr:
		return ev.joinedStr(fr, e)
	case *syntax.FormattedValue:
		return ev.formatted(fr, e)
	case *syntax.BinOp:
		x := ev.expr(fr, e.X)
		y := ev.expr(fr, e.Y)
		return ev.Binop(e.Op, x, y, sp, false)
	case *syntax.UnaryOp:
		return ev.unary(e.Op, ev.expr(fr, e.X), sp)
	case *syntax.BoolOp:
		return ev.boolOp(fr, e)
	case *syntax.Compare:
		return ev.compareChain(fr, e)
	case *syntax.Call:
		return ev.evalCall(fr, e)
	case *syntax.Attribute:
		return ev.GetAttr(ev.expr(fr, e.X), e.Attr.Id, e.Attr.Loc, sp)
	case *syntax.Subscript:
		obj := ev.expr(fr, e.X)
		idx, isTuple := ev.indexValues(fr, e.Index)
		return ev.getItem(fr, obj, idx, isTuple, e)
	case *syntax.Slice:
		return ev.sliceValue(fr, e)
	case *syntax.Tuple:
		return ev.mkTuple(sp, ev.exprList(fr, e.Elts), false)
	case *syntax.List:
		return ev.mkList(sp, ev.exprList(fr, e.Elts), false)
	case *syntax.Set:
		elts := ev.exprList(fr, e.Elts)
		if !ev.hashWork(sp, elts...) {
			return Poison(sp)
		}
		return ev.mkList(sp, dedup(elts), false)
	case *syntax.Dict:
		return ev.dictDisplay(fr, e)
	case *syntax.ListComp:
		return ev.comprehension(fr, e.Generators, sp, func(f *frame, acc *[]Value) { *acc = append(*acc, ev.expr(f, e.Elt)) }, false)
	case *syntax.SetComp:
		v := ev.comprehension(fr, e.Generators, sp, func(f *frame, acc *[]Value) { *acc = append(*acc, ev.expr(f, e.Elt)) }, false)
		if l, ok := v.(*ListV); ok {
			if !ev.hashWork(sp, l.Elts...) {
				return Poison(sp)
			}
			l.Elts = dedup(l.Elts)
		}
		return v
	case *syntax.GeneratorExp:
		return ev.comprehension(fr, e.Generators, sp, func(f *frame, acc *[]Value) { *acc = append(*acc, ev.expr(f, e.Elt)) }, false)
	case *syntax.DictComp:
		return ev.comprehension(fr, e.Generators, sp, func(f *frame, acc *[]Value) {
			*acc = append(*acc, ev.expr(f, e.Key), ev.expr(f, e.Value))
		}, true)
	case *syntax.Lambda:
		fn := &FuncV{Base: Base{sp}, Name: "<lambda>", Lambda: e, Params: e.Params, Env: fr.env, Defaults: map[*syntax.Param]Value{}}
		ev.evalDefaults(fr, fn)
		return fn
	case *syntax.IfExp:
		return ev.ifExp(fr, e)
	case *syntax.Starred:
		return ev.PyErrorf(sp, "can't use starred expression here")
	case *syntax.NamedExpr:
		v := ev.expr(fr, e.Value)
		fr.env.set(e.Target.Id, v)
		return v
	case *syntax.Await, *syntax.Yield, *syntax.YieldFrom:
		return &OpaqueV{Base{sp}, ev.Text(sp)}
	case *syntax.BadExpr:
		return Poison(sp)
	}
	return Poison(sp)
}

func (ev *Evaluator) exprList(fr *frame, es []syntax.Expr) []Value {
	out := make([]Value, 0, len(es))
	for _, e := range es {
		if st, ok := e.(*syntax.Starred); ok {
			v := ev.expr(fr, st.X)
			if IsErr(v) {
				out = append(out, v)
				continue
			}
			elts, ok := ev.Iterate(v, st.Loc)
			if !ok {
				out = append(out, ev.PyErrorf(st.Loc, "'%s' object is not iterable", v.TypeName()))
				continue
			}
			// The display is charged for its elements when it is made;
			// an unpacked iterable can be large, so it is charged first.
			if !ev.charge(st.Loc, "list", mulCost(int64(len(elts)), costSlot)) {
				out = append(out, Poison(st.Loc))
				continue
			}
			out = append(out, elts...)
			continue
		}
		out = append(out, ev.expr(fr, e))
	}
	return out
}

func dedup(vs []Value) []Value {
	seen := map[string]bool{}
	out := vs[:0]
	for _, v := range vs {
		if k, ok := hashKey(v); ok {
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, v)
	}
	return out
}

func (ev *Evaluator) lookupName(fr *frame, e *syntax.Name) Value {
	if v, ok := fr.env.lookup(e.Id); ok {
		return v
	}
	if v, ok := builtinNames[e.Id]; ok {
		return v
	}
	if v, ok := fr.env.root().vars["*opaque-star*"]; ok {
		return &OpaqueV{Base{e.Loc}, v.(*OpaqueV).Path + "." + e.Id}
	}
	if (ev.speculating && ev.Kern == nil) || ev.tryDepth > 0 {
		return Poison(e.Loc)
	}
	return ev.Errorf(e.Loc, CodeUnresolved, "name '%s' is not defined", e.Id)
}

func (ev *Evaluator) constant(e *syntax.Constant) Value {
	sp := e.Loc
	switch e.Kind {
	case syntax.Int:
		if n, ok := smallDecimal(e.Value); ok {
			v := ev.slabs.ints.new()
			*v = IntV{Base{sp}, n}
			return v
		}
		if n, ok := smallHex(e.Value); ok {
			v := ev.slabs.ints.new()
			*v = IntV{Base{sp}, n}
			return v
		}
		s := strings.ReplaceAll(e.Value, "_", "")
		n, ok := new(big.Int).SetString(s, 0)
		if !ok {
			// Python allows leading zeros only for 0; SetString with base 0
			// rejects "00"; treat it as decimal.
			n, ok = new(big.Int).SetString(strings.TrimLeft(s, "0")+"0", 10)
			if ok && strings.Trim(s, "0") == "" {
				return &IntV{Base{sp}, 0}
			}
			return ev.PyErrorf(sp, "invalid integer literal %s", e.Value)
		}
		if !n.IsInt64() {
			return ev.PyErrorf(sp, "integer %s does not fit in 64 bits", e.Value)
		}
		return &IntV{Base{sp}, n.Int64()}
	case syntax.Float:
		f, err := strconv.ParseFloat(strings.ReplaceAll(e.Value, "_", ""), 64)
		if err != nil && !math.IsInf(f, 0) {
			return ev.PyErrorf(sp, "invalid float literal %s", e.Value)
		}
		return &FloatV{Base{sp}, f}
	case syntax.String, syntax.Bytes:
		return &StrV{Base{sp}, e.Str}
	case syntax.True:
		return &BoolV{Base{sp}, true}
	case syntax.False:
		return &BoolV{Base{sp}, false}
	case syntax.None:
		return &NoneV{Base{sp}}
	case syntax.Ellipsis:
		return &MarkerV{Base: Base{sp}, Name: "Ellipsis"}
	}
	return &OpaqueV{Base{sp}, e.Value}
}

// smallDecimal parses a decimal literal of at most 18 digits without a
// leading zero (what nearly every literal is) without math/big, which
// took 6 % of evaluating the 3,000-line benchmark file.
func smallDecimal(s string) (int64, bool) {
	if s == "" || len(s) > 18 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// smallHex parses a hexadecimal literal of at most 15 digits without
// underscores ("0x40004040"), as big.Int's SetString does, without its
// allocations (kernels write instruction descriptors this way: 1.7 % of
// the allocations of evaluating the largest TIRx-kernels file).
func smallHex(s string) (int64, bool) {
	if len(s) < 3 || len(s) > 17 || s[0] != '0' || s[1] != 'x' && s[1] != 'X' {
		return 0, false
	}
	var n int64
	for i := 2; i < len(s); i++ {
		c := s[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}

func (ev *Evaluator) joinedStr(fr *frame, e *syntax.JoinedStr) Value {
	parts := make([]string, 0, len(e.Parts))
	n := int64(0)
	for _, p := range e.Parts {
		v := ev.expr(fr, p)
		if IsErr(v) {
			return v
		}
		s, ok := v.(*StrV)
		if !ok {
			return ev.PyErrorf(p.Span(), "f-string part is %s", v.TypeName())
		}
		parts = append(parts, s.V)
		n += int64(len(s.V))
	}
	if len(parts) == 1 {
		return &StrV{Base{e.Loc}, parts[0]}
	}
	if !ev.charge(e.Loc, "str", strCost(n)) {
		return Poison(e.Loc)
	}
	return &StrV{Base{e.Loc}, strings.Join(parts, "")}
}

func (ev *Evaluator) formatted(fr *frame, e *syntax.FormattedValue) Value {
	v := ev.expr(fr, e.Value)
	if IsErr(v) {
		return v
	}
	spec := ""
	if e.FormatSpec != nil {
		sv := ev.joinedStr(fr, e.FormatSpec)
		s, ok := sv.(*StrV)
		if !ok {
			return sv
		}
		spec = s.V
	}
	if e.Conversion == 'r' || e.Conversion == 'a' || e.Conversion == 's' {
		s, ok := ev.strOf(e.Loc, v, e.Conversion != 's')
		if !ok {
			return Poison(e.Loc)
		}
		v = &StrV{Base{v.Span()}, s}
	}
	s, ok := ev.formatValue(v, spec, e.Loc)
	if ev.Halted {
		return Poison(e.Loc)
	}
	if !ok {
		return ev.PyErrorf(e.Loc, "unsupported format spec %q for %s", spec, v.TypeName())
	}
	return &StrV{Base{e.Loc}, s}
}

// strOf is str(v) (repr false) or repr(v) as the text of a value being
// built: charged, and bounded by the value budget while it is written (a
// container that shares its elements can have a repr exponentially
// longer than the memory it takes). False when the budget ran out.
func (ev *Evaluator) strOf(span source.Span, v Value, repr bool) (string, bool) {
	if !repr {
		switch x := v.(type) {
		case *StrV:
			return x.V, true // the text exists already
		case *DTypeV:
			return x.DT.String(), true
		}
	}
	room := ev.room()
	s, whole := reprN(v, room)
	if !whole {
		ev.refuse(span, "str")
		return "", false
	}
	return s, ev.charge(span, "str", strCost(int64(len(s))))
}

// maxFormatNumber saturates the width and precision of a format spec, so
// the digits of a hostile one cannot overflow (a width of 10**30).
const maxFormatNumber = 1 << 58

// formatValue implements the common part of Python's format mini-language:
// [[fill]align][sign][0][width][,][.precision][type]. ok is false when
// the spec does not apply to v. The text it builds is charged: padding to
// the width and the digits of a float's precision before they are
// allocated, so f"{0:1000000000}" stops at the value budget (ev.halted is
// then set and the caller returns poison).
func (ev *Evaluator) formatValue(v Value, spec string, span source.Span) (string, bool) {
	if spec == "" {
		return ev.strOf(span, v, false)
	}
	fill, align := " ", byte(0)
	i := 0
	if len(spec) >= 2 && strings.IndexByte("<>^=", spec[1]) >= 0 {
		fill, align, i = spec[:1], spec[1], 2
	} else if len(spec) >= 1 && strings.IndexByte("<>^=", spec[0]) >= 0 {
		align, i = spec[0], 1
	}
	sign := byte('-')
	if i < len(spec) && strings.IndexByte("+- ", spec[i]) >= 0 {
		sign = spec[i]
		i++
	}
	if i < len(spec) && spec[i] == '0' {
		fill, align = "0", '='
		i++
	}
	w := 0
	for i < len(spec) && spec[i] >= '0' && spec[i] <= '9' {
		w = min(w*10+int(spec[i]-'0'), maxFormatNumber)
		i++
	}
	comma := false
	if i < len(spec) && (spec[i] == ',' || spec[i] == '_') {
		comma = true
		i++
	}
	prec := -1
	if i < len(spec) && spec[i] == '.' {
		i++
		prec = 0
		for i < len(spec) && spec[i] >= '0' && spec[i] <= '9' {
			prec = min(prec*10+int(spec[i]-'0'), maxFormatNumber)
			i++
		}
	}
	typ := byte(0)
	if i < len(spec) {
		typ = spec[i]
		i++
	}
	if i != len(spec) {
		return "", false
	}
	var body string
	neg := false
	switch x := v.(type) {
	case *IntV, *BoolV:
		n, _ := ToInt(x)
		if typ == 'f' || typ == 'e' || typ == 'g' || typ == '%' {
			return ev.formatValue(&FloatV{V: float64(n)}, spec, span)
		}
		neg = n < 0
		u := uint64(n)
		if neg {
			u = -u
		}
		switch typ {
		case 0, 'd':
			body = strconv.FormatUint(u, 10)
		case 'x':
			body = strconv.FormatUint(u, 16)
		case 'X':
			body = strings.ToUpper(strconv.FormatUint(u, 16))
		case 'b':
			body = strconv.FormatUint(u, 2)
		case 'o':
			body = strconv.FormatUint(u, 8)
		default:
			return "", false
		}
		if comma {
			body = groupThousands(body)
		}
	case *FloatV:
		f := x.V
		neg = f < 0
		if neg {
			f = -f
		}
		// strconv allocates the precision's digits up front.
		if prec > 0 && !ev.charge(span, "str", strCost(int64(prec))) {
			return "", false
		}
		p := prec
		switch typ {
		case 'f', 'F':
			if p < 0 {
				p = 6
			}
			body = strconv.FormatFloat(f, 'f', p, 64)
		case 'e', 'E':
			if p < 0 {
				p = 6
			}
			body = strconv.FormatFloat(f, 'e', p, 64)
		case 'g', 'G':
			body = strconv.FormatFloat(f, 'g', p, 64)
		case '%':
			if p < 0 {
				p = 6
			}
			body = strconv.FormatFloat(f*100, 'f', p, 64) + "%"
		case 0:
			if p >= 0 {
				body = strconv.FormatFloat(f, 'g', p, 64)
			} else {
				body = pyFloat(f)
			}
		default:
			return "", false
		}
	case *StrV:
		if typ != 0 && typ != 's' {
			return "", false
		}
		body = x.V
		if prec >= 0 && len(body) > prec {
			body = body[:prec]
		}
		if align == 0 {
			align = '<'
		}
	default:
		if typ != 0 {
			return "", false
		}
		s, ok := ev.strOf(span, v, false)
		if !ok {
			return "", false
		}
		body = s
		if align == 0 {
			align = '<'
		}
	}
	signStr := ""
	if neg {
		signStr = "-"
	} else if sign == '+' {
		signStr = "+"
	} else if sign == ' ' {
		signStr = " "
	}
	if align == 0 {
		align = '>'
	}
	pad := w - len(signStr) - len(body)
	if pad <= 0 {
		return signStr + body, true
	}
	if !ev.charge(span, "str", strCost(int64(w))) {
		return "", false
	}
	p := strings.Repeat(fill, pad)
	switch align {
	case '<':
		return signStr + body + p, true
	case '^':
		l := pad / 2
		return strings.Repeat(fill, l) + signStr + body + strings.Repeat(fill, pad-l), true
	case '=':
		return signStr + p + body, true
	}
	return p + signStr + body, true
}

func groupThousands(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (ev *Evaluator) dictDisplay(fr *frame, e *syntax.Dict) Value {
	d := NewDict(e.Loc)
	for i, k := range e.Keys {
		if k == nil {
			v := ev.expr(fr, e.Values[i])
			if IsErr(v) {
				continue
			}
			src, ok := v.(*DictV)
			if !ok {
				ev.PyErrorf(e.Values[i].Span(), "'%s' object is not a mapping", v.TypeName())
				continue
			}
			for j := range src.Keys {
				ev.setEntry(d, src.Keys[j], src.Vals[j], e.Values[i].Span())
			}
			continue
		}
		kv := ev.expr(fr, k)
		vv := ev.expr(fr, e.Values[i])
		if errIn(kv) != nil {
			continue // an unknown key: lookups with it are unknown too
		}
		if !ev.setEntry(d, kv, vv, k.Span()) {
			ev.PyErrorf(k.Span(), "unhashable type: '%s'", kv.TypeName())
		}
	}
	if ev.Halted {
		return Poison(e.Loc)
	}
	return d
}

// comprehension evaluates generators in a child scope, calling body for
// each innermost binding.
func (ev *Evaluator) comprehension(fr *frame, gens []*syntax.Comprehension, span source.Span, body func(*frame, *[]Value), isDict bool) Value {
	inner := &frame{env: newScope(fr.env), tir: false, fn: fr.fn}
	var acc []Value
	var bad Value
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(gens) {
			body(inner, &acc)
			return true
		}
		g := gens[i]
		var it Value
		if i == 0 {
			it = ev.expr(fr, g.Iter)
		} else {
			it = ev.expr(inner, g.Iter)
		}
		if IsErr(it) {
			bad = it
			return false
		}
		next, ok := ev.iterator(it, g.Iter.Span())
		if !ok {
			bad = ev.PyErrorf(g.Iter.Span(), "'%s' object is not iterable", it.TypeName())
			return false
		}
		for {
			x, more := next()
			if !more {
				return true
			}
			if !ev.step(g.Loc) {
				bad = Poison(span)
				return false
			}
			ev.assign(inner, g.Target, x, g.Iter.Span(), false)
			keep := true
			for _, cond := range g.Ifs {
				c := ev.expr(inner, cond)
				if IsErr(c) {
					bad = c
					return false
				}
				if _, ok := c.(*ExprV); ok {
					bad = ev.PyErrorf(cond.Span(), "comprehension condition is a device value")
					return false
				}
				if !Truthy(c) {
					keep = false
					break
				}
			}
			if keep && !rec(i+1) {
				return false
			}
		}
	}
	if !rec(0) {
		return bad
	}
	if isDict {
		d := NewDict(span)
		for i := 0; i+1 < len(acc); i += 2 {
			if !ev.setEntry(d, acc[i], acc[i+1], span) && !IsErr(acc[i]) {
				return ev.PyErrorf(acc[i].Span(), "unhashable type: '%s'", acc[i].TypeName())
			}
		}
		if ev.Halted {
			return Poison(span)
		}
		return d
	}
	return ev.mkList(span, acc, false)
}

func (ev *Evaluator) ifExp(fr *frame, e *syntax.IfExp) Value {
	c := ev.expr(fr, e.Test)
	if IsErr(c) {
		return c
	}
	if ce, ok := c.(*ExprV); ok {
		a := ev.expr(fr, e.Body)
		b := ev.expr(fr, e.OrElse)
		if IsErr(a) {
			return a
		}
		if IsErr(b) {
			return b
		}
		ae, aok := ev.ToIR(a, ir.DataType{})
		be, bok := ev.ToIR(b, ExprType(ae))
		if !aok || !bok {
			return ev.PyErrorf(e.Loc, "a device conditional expression needs scalar branches")
		}
		return &ExprV{Base: Base{e.Loc}, E: &ir.Select{Cond: ce.E, A: ae, B: be, Span: e.Loc}}
	}
	if Truthy(c) {
		return ev.expr(fr, e.Body)
	}
	return ev.expr(fr, e.OrElse)
}

func (ev *Evaluator) sliceValue(fr *frame, e *syntax.Slice) Value {
	part := func(x syntax.Expr) Value {
		if x == nil {
			return &NoneV{Base{e.Loc}}
		}
		return ev.expr(fr, x)
	}
	return &SliceV{Base{e.Loc}, part(e.Lower), part(e.Upper), part(e.Step)}
}

// indexValues evaluates a subscript index: the elements of an unparenthesized
// tuple index (slices become *SliceV), or the single index.
func (ev *Evaluator) indexValues(fr *frame, idx syntax.Expr) ([]Value, bool) {
	if t, ok := idx.(*syntax.Tuple); ok && !t.Parens {
		return ev.exprList(fr, t.Elts), true
	}
	if st, ok := idx.(*syntax.Starred); ok {
		return ev.exprList(fr, []syntax.Expr{st}), true
	}
	out := ev.slabs.values.take(1)
	out[0] = ev.expr(fr, idx)
	return out, false
}

func keyOf(idx []Value, isTuple bool, span source.Span) Value {
	if isTuple {
		return &TupleV{Base{span}, idx}
	}
	return idx[0]
}

// ---- truthiness and iteration ----

func Truthy(v Value) bool {
	switch v := v.(type) {
	case *IntV:
		return v.V != 0
	case *FloatV:
		return v.V != 0
	case *BoolV:
		return v.V
	case *NoneV:
		return false
	case *StrV:
		return v.V != ""
	case *TupleV:
		return len(v.Elts) > 0
	case *ListV:
		return len(v.Elts) > 0
	case *DictV:
		return len(v.Keys) > 0
	case *RangeV:
		return rangeLen(v) > 0
	}
	return true
}

func rangeLen(r *RangeV) int64 {
	if r.Step > 0 && r.Stop > r.Start {
		return (r.Stop - r.Start + r.Step - 1) / r.Step
	}
	if r.Step < 0 && r.Start > r.Stop {
		return (r.Start - r.Stop - r.Step - 1) / -r.Step
	}
	return 0
}

// iterator returns a lazy iterator over a Python iterable.
func (ev *Evaluator) iterator(v Value, span source.Span) (func() (Value, bool), bool) {
	switch v := v.(type) {
	case *RangeV:
		i, n := int64(0), rangeLen(v)
		return func() (Value, bool) {
			if i >= n {
				return nil, false
			}
			x := v.Start + i*v.Step
			i++
			r := ev.slabs.ints.new()
			*r = IntV{Base{span}, x}
			return r, true
		}, true
	}
	elts, ok := ev.Iterate(v, span)
	if !ok {
		return nil, false
	}
	i := 0
	return func() (Value, bool) {
		if i >= len(elts) {
			return nil, false
		}
		i++
		return elts[i-1], true
	}, true
}

// Iterate materializes a Python iterable (ranges up to the step budget).
// The elements of a tuple or list and the keys of a dict are returned as
// they are: shared, so the caller must not modify the slice or keep it in
// a new container without copying it (the containers themselves never
// modify an element array in place except to set an element or append
// past its length, so the caller's view stays valid). A str's characters
// and a range's numbers are made here, charged to the value budget. It
// returns false when v is not iterable or the budget ran out (ev.halted).
func (ev *Evaluator) Iterate(v Value, span source.Span) ([]Value, bool) {
	switch v := v.(type) {
	case *TupleV:
		return v.Elts, true
	case *ListV:
		return v.Elts, true
	case *DictV:
		return v.Keys, true
	case *StrV:
		if !ev.charge(span, "list", seqCost(int64(utf8.RuneCountInString(v.V)), true)) {
			return nil, false
		}
		var out []Value
		for _, r := range v.V {
			out = append(out, &StrV{Base{v.At}, string(r)})
		}
		return out, true
	case *RangeV:
		n := rangeLen(v)
		if n > int64(ev.Opts.MaxSteps) {
			ev.work(span, ev.Opts.MaxSteps+1, 1) // halts, reporting the budget
			return nil, false
		}
		if !ev.work(span, int(n), 4) || !ev.charge(span, "list", seqCost(n, true)) {
			return nil, false
		}
		out := make([]Value, 0, n)
		for i := int64(0); i < n; i++ {
			out = append(out, &IntV{Base{span}, v.Start + i*v.Step})
		}
		return out, true
	case *ClassV:
		if v.enum != enumNone && !v.root { // an Enum class iterates its members (class.go)
			return enumMembers(v), true
		}
	}
	return nil, false
}

// ---- conversions ----

// ToInt returns v as an int when it is a Python int/bool or a constant
// integer device expression.
func ToInt(v Value) (int64, bool) {
	switch v := v.(type) {
	case *IntV:
		return v.V, true
	case *BoolV:
		if v.V {
			return 1, true
		}
		return 0, true
	case *ExprV:
		if c, ok := v.E.(*ir.IntImm); ok {
			return c.Value, true
		}
	case *EnumV:
		return v.V, true
	}
	return 0, false
}

func toFloat(v Value) (float64, bool) {
	switch v := v.(type) {
	case *FloatV:
		return v.V, true
	case *ExprV:
		if c, ok := v.E.(*ir.FloatImm); ok {
			return c.Value, true
		}
	}
	if n, ok := ToInt(v); ok {
		return float64(n), true
	}
	return 0, false
}

// IsPyNum reports whether v is a Python int, bool or float.
func IsPyNum(v Value) bool {
	switch v.(type) {
	case *IntV, *BoolV, *FloatV:
		return true
	}
	return false
}

// ---- subscripts ----

func normIndex(i int64, n int) (int, bool) {
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, false
	}
	return int(i), true
}

// sliceIndices resolves a Python slice against a sequence of length n.
func (ev *Evaluator) sliceIndices(s *SliceV, n int) ([]int, bool) {
	lo, step, count, ok := ev.sliceRange(s, n)
	if !ok {
		return nil, false
	}
	out := make([]int, count)
	for k := range out {
		out[k] = int(lo + int64(k)*step)
	}
	return out, true
}

// sliceRange resolves a Python slice against a sequence of length n: its
// first index, its step and how many indices it has.
func (ev *Evaluator) sliceRange(s *SliceV, n int) (lo, step int64, count int, ok bool) {
	step = 1
	if _, ok := s.Step.(*NoneV); !ok {
		st, ok := ToInt(s.Step)
		if !ok || st == 0 {
			return 0, 0, 0, false
		}
		step = st
	}
	get := func(v Value, def int64) (int64, bool) {
		if _, ok := v.(*NoneV); ok {
			return def, true
		}
		x, ok := ToInt(v)
		if !ok {
			return 0, false
		}
		if x < 0 {
			x += int64(n)
			if x < 0 {
				if step < 0 {
					x = -1
				} else {
					x = 0
				}
			}
		}
		if x > int64(n) {
			if step < 0 {
				x = int64(n) - 1
			} else {
				x = int64(n)
			}
		}
		if step < 0 && x >= int64(n) {
			x = int64(n) - 1
		}
		return x, true
	}
	var hi int64
	var ok1, ok2 bool
	if step > 0 {
		lo, ok1 = get(s.Lo, 0)
		hi, ok2 = get(s.Hi, int64(n))
	} else {
		lo, ok1 = get(s.Lo, int64(n)-1)
		hi, ok2 = get(s.Hi, -1)
		if _, isNone := s.Hi.(*NoneV); isNone {
			hi = -1
		}
	}
	if !ok1 || !ok2 {
		return 0, 0, 0, false
	}
	switch {
	case step > 0 && hi > lo:
		count = int((hi-lo-1)/step + 1)
	case step == math.MinInt64 && lo > hi:
		count = 1
	case step < 0 && lo > hi:
		count = int((lo-hi-1)/-step + 1)
	}
	return lo, step, count, true
}

func (ev *Evaluator) getItem(fr *frame, obj Value, idx []Value, isTuple bool, e *syntax.Subscript) Value {
	sp := e.Loc
	if IsErr(obj) {
		if o, ok := obj.(*OpaqueV); ok {
			return &OpaqueV{Base{sp}, o.Path + "[...]"}
		}
		return obj
	}
	switch o := obj.(type) {
	case *ModuleV:
		if o.Path == "os.environ" { // bind_environ.go: a set variable's value is unknown
			return &OpaqueV{Base{sp}, "os.environ[...]"}
		}
	case *BufferV:
		return ev.BufferIndex(o, idx, e)
	case *RegionV:
		return ev.RegionIndex(o, idx, e)
	case SubscriptValue: // a library value (library.go)
		return o.LibIndex(ev, idx, e)
	case *SpecBuilderV:
		return ev.libSpecSubscript(o, e, idx, isTuple) // library.go
	case *oldScopeV:
		return ev.oldScopeIndex(o, idx, isTuple, sp)
	case *DTypeV:
		if !o.Ctor {
			break
		}
		return &AnnotV{Base: Base{sp}, Kind: "local", DT: o.DT, Shape: keyOf(idx, isTuple, sp)}
	case *MarkerV:
		switch o.Name {
		case "T.let":
			return &MarkerV{Base: Base{sp}, Name: "T.let", Arg: keyOf(idx, isTuple, sp)}
		case "T.Buffer":
			args := idx
			if !isTuple {
				args = idx
			}
			return ev.bufferAnnot(&Call{At: sp, Args: args, ArgSpans: spansOf(args)})
		}
	case *BuiltinV:
		return &OpaqueV{Base{sp}, o.Name + "[...]"} // typing: tuple[int, ...]
	case *IntrinsicV:
		if len(idx) == 1 {
			if s, ok := idx[0].(*StrV); ok {
				return &IntrinsicV{Base{sp}, o.Path + "." + s.V}
			}
		}
	case *DictV:
		k := keyOf(idx, isTuple, sp)
		if x := errIn(k); x != nil {
			return x
		}
		if !ev.hashWork(sp, k) {
			return Poison(sp)
		}
		v, found, hashable := o.get(k)
		if !hashable {
			return ev.PyErrorf(sp, "unhashable type: '%s'", k.TypeName())
		}
		if !found {
			return ev.PyErrorf(e.Index.Span(), "KeyError: %s", Repr(k))
		}
		return v
	case *TupleV, *ListV, *StrV, *RangeV:
		if isTuple {
			return ev.PyErrorf(e.Index.Span(), "%s indices must be integers or slices, not tuple", obj.TypeName())
		}
		return ev.seqIndex(obj, idx[0], e.Index.Span(), sp)
	}
	for _, x := range idx {
		if IsErr(x) {
			return x
		}
	}
	return ev.PyErrorf(sp, "'%s' object is not subscriptable", obj.TypeName())
}

func spansOf(vs []Value) []source.Span {
	out := make([]source.Span, len(vs))
	for i, v := range vs {
		out[i] = v.Span()
	}
	return out
}

// SeqElts returns the elements of a tuple or list (nil for anything
// else: a str's characters are made only where they are needed, see
// strIndex and iterate).
func SeqElts(obj Value) []Value {
	switch o := obj.(type) {
	case *TupleV:
		return o.Elts
	case *ListV:
		return o.Elts
	}
	return nil
}

func (ev *Evaluator) seqIndex(obj, idx Value, idxSpan, sp source.Span) Value {
	if IsErr(idx) {
		return idx
	}
	switch o := obj.(type) {
	case *RangeV:
		n := rangeLen(o)
		i, ok := ToInt(idx)
		if !ok {
			return ev.PyErrorf(idxSpan, "range indices must be integers, not %s", idx.TypeName())
		}
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return ev.PyErrorf(idxSpan, "range object index out of range")
		}
		return &IntV{Base{sp}, o.Start + i*o.Step}
	case *StrV:
		return ev.strIndex(o, idx, idxSpan, sp)
	}
	elts := SeqElts(obj)
	if s, ok := idx.(*SliceV); ok {
		lo, step, count, ok := ev.sliceRange(s, len(elts))
		if !ok {
			return ev.PyErrorf(idxSpan, "slice indices must be integers or None")
		}
		if !ev.charge(sp, obj.TypeName(), seqCost(int64(count), false)) {
			return Poison(sp)
		}
		out := make([]Value, count)
		for k := range out {
			out[k] = elts[lo+int64(k)*step]
		}
		if _, ok := obj.(*TupleV); ok {
			return &TupleV{Base{sp}, out}
		}
		return &ListV{Base{sp}, out}
	}
	i, ok := ToInt(idx)
	if !ok {
		return ev.PyErrorf(idxSpan, "%s indices must be integers or slices, not %s", obj.TypeName(), idx.TypeName())
	}
	j, ok := normIndex(i, len(elts))
	if !ok {
		return ev.PyErrorf(idxSpan, "%s index out of range", obj.TypeName())
	}
	return elts[j]
}

// strIndex is s[idx] and s[slice], by characters. An ASCII string (the
// common case) is indexed by bytes, without decoding; another is decoded
// once into runes, charged.
func (ev *Evaluator) strIndex(s *StrV, idx Value, idxSpan, sp source.Span) Value {
	var runes []rune
	n := len(s.V)
	if !isASCII(s.V) {
		n = utf8.RuneCountInString(s.V)
		if !ev.charge(sp, "str", mulCost(int64(n), 4)) {
			return Poison(sp)
		}
		runes = []rune(s.V)
	}
	if sl, ok := idx.(*SliceV); ok {
		lo, step, count, ok := ev.sliceRange(sl, n)
		if !ok {
			return ev.PyErrorf(idxSpan, "slice indices must be integers or None")
		}
		if runes == nil && step == 1 {
			return &StrV{Base{sp}, s.V[lo : lo+int64(count)]} // a substring: nothing new
		}
		if !ev.charge(sp, "str", strCost(mulCost(int64(count), utf8.UTFMax))) {
			return Poison(sp)
		}
		var b strings.Builder
		for k := int64(0); k < int64(count); k++ {
			if i := lo + k*step; runes == nil {
				b.WriteByte(s.V[i])
			} else {
				b.WriteRune(runes[i])
			}
		}
		return &StrV{Base{sp}, b.String()}
	}
	i, ok := ToInt(idx)
	if !ok {
		return ev.PyErrorf(idxSpan, "string indices must be integers, not '%s'", idx.TypeName())
	}
	j, ok := normIndex(i, n)
	if !ok {
		return ev.PyErrorf(idxSpan, "string index out of range")
	}
	if runes == nil {
		return &StrV{Base{sp}, s.V[j : j+1]}
	}
	return &StrV{Base{sp}, string(runes[j])}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (ev *Evaluator) setItem(fr *frame, obj Value, idx []Value, isTuple bool, v Value, vspan source.Span, e *syntax.Subscript) {
	if IsErr(obj) {
		if _, opaque := obj.(*OpaqueV); opaque && ev.inKernelTIR(fr) {
			// a store into something tilels does not model (a buffer it
			// could not build): an ignored statement, warned, not dropped
			ev.IgnoreStatement(source.Join(e.Loc, vspan))
		}
		return
	}
	switch o := obj.(type) {
	case *BufferV:
		ev.bufferStore(fr, o, idx, v, vspan, e)
	case *DictV:
		k := keyOf(idx, isTuple, e.Loc)
		if !ev.setEntry(o, k, v, e.Loc) && !IsErr(k) {
			ev.PyErrorf(e.Index.Span(), "unhashable type: '%s'", k.TypeName())
		}
	case *ListV:
		if isTuple || len(idx) != 1 {
			ev.PyErrorf(e.Index.Span(), "list indices must be integers or slices, not tuple")
			return
		}
		if s, ok := idx[0].(*SliceV); ok {
			is, ok := ev.sliceIndices(s, len(o.Elts))
			src, ok2 := ev.Iterate(v, e.Loc)
			if !ok || !ok2 {
				ev.PyErrorf(e.Loc, "unsupported slice assignment")
				return
			}
			// src may be o's own elements (l[::-1] = l): copied, as CPython does.
			if !ev.charge(e.Loc, "list", seqCost(int64(len(o.Elts)+len(src)), false)) {
				return
			}
			src = append([]Value(nil), src...)
			if _, none := s.Step.(*NoneV); none {
				lo, hi := len(o.Elts), len(o.Elts)
				if len(is) > 0 {
					lo, hi = is[0], is[len(is)-1]+1
				} else if l, ok := ToInt(s.Lo); ok {
					if j, ok := normIndex(l, len(o.Elts)); ok {
						lo, hi = j, j
					}
				}
				n := append(append(append([]Value(nil), o.Elts[:lo]...), src...), o.Elts[hi:]...)
				o.Elts = n
				return
			}
			if len(is) != len(src) {
				ev.PyErrorf(e.Loc, "attempt to assign sequence of size %d to extended slice of size %d", len(src), len(is))
				return
			}
			for k, i := range is {
				o.Elts[i] = src[k]
			}
			return
		}
		i, ok := ToInt(idx[0])
		if !ok {
			if !IsErr(idx[0]) {
				ev.PyErrorf(e.Index.Span(), "list indices must be integers or slices, not %s", idx[0].TypeName())
			}
			return
		}
		j, ok := normIndex(i, len(o.Elts))
		if !ok {
			ev.PyErrorf(e.Index.Span(), "list assignment index out of range")
			return
		}
		o.Elts[j] = v
	case StoreValue:
		o.LibSetIndex(ev, idx, v, vspan, e)
	default:
		ev.PyErrorf(e.Loc, "'%s' object does not support item assignment", obj.TypeName())
	}
}
