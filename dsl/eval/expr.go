package eval

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// expr evaluates e in fr.
func (ev *evaluator) expr(fr *frame, e syntax.Expr) Value {
	if e == nil {
		return &NoneV{base{source.NoSpan}}
	}
	sp := e.Span()
	if !ev.step(sp) {
		return poison(sp)
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
		return ev.binop(e.Op, x, y, sp, false)
	case *syntax.UnaryOp:
		return ev.unary(e.Op, ev.expr(fr, e.X), sp)
	case *syntax.BoolOp:
		return ev.boolOp(fr, e)
	case *syntax.Compare:
		return ev.compareChain(fr, e)
	case *syntax.Call:
		return ev.evalCall(fr, e)
	case *syntax.Attribute:
		return ev.getAttr(ev.expr(fr, e.X), e.Attr.Id, e.Attr.Loc, sp)
	case *syntax.Subscript:
		obj := ev.expr(fr, e.X)
		idx, isTuple := ev.indexValues(fr, e.Index)
		return ev.getItem(fr, obj, idx, isTuple, e)
	case *syntax.Slice:
		return ev.sliceValue(fr, e)
	case *syntax.Tuple:
		return &TupleV{base{sp}, ev.exprList(fr, e.Elts)}
	case *syntax.List:
		return &ListV{base{sp}, ev.exprList(fr, e.Elts)}
	case *syntax.Set:
		return &ListV{base{sp}, dedup(ev.exprList(fr, e.Elts))}
	case *syntax.Dict:
		return ev.dictDisplay(fr, e)
	case *syntax.ListComp:
		return ev.comprehension(fr, e.Generators, sp, func(f *frame, acc *[]Value) { *acc = append(*acc, ev.expr(f, e.Elt)) }, false)
	case *syntax.SetComp:
		v := ev.comprehension(fr, e.Generators, sp, func(f *frame, acc *[]Value) { *acc = append(*acc, ev.expr(f, e.Elt)) }, false)
		if l, ok := v.(*ListV); ok {
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
		fn := &FuncV{base: base{sp}, Name: "<lambda>", Lambda: e, Params: e.Params, Env: fr.env, Defaults: map[*syntax.Param]Value{}}
		ev.evalDefaults(fr, fn)
		return fn
	case *syntax.IfExp:
		return ev.ifExp(fr, e)
	case *syntax.Starred:
		return ev.pyErrorf(sp, "can't use starred expression here")
	case *syntax.NamedExpr:
		v := ev.expr(fr, e.Value)
		fr.env.set(e.Target.Id, v)
		return v
	case *syntax.Await, *syntax.Yield, *syntax.YieldFrom:
		return &OpaqueV{base{sp}, ev.text(sp)}
	case *syntax.BadExpr:
		return poison(sp)
	}
	return poison(sp)
}

func (ev *evaluator) exprList(fr *frame, es []syntax.Expr) []Value {
	out := make([]Value, 0, len(es))
	for _, e := range es {
		if st, ok := e.(*syntax.Starred); ok {
			v := ev.expr(fr, st.X)
			if isErr(v) {
				out = append(out, v)
				continue
			}
			elts, ok := ev.iterate(v, st.Loc)
			if !ok {
				out = append(out, ev.pyErrorf(st.Loc, "'%s' object is not iterable", v.TypeName()))
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

func (ev *evaluator) lookupName(fr *frame, e *syntax.Name) Value {
	if v, ok := fr.env.lookup(e.Id); ok {
		return v
	}
	if v, ok := builtinNames[e.Id]; ok {
		return v
	}
	if v, ok := fr.env.root().vars["*opaque-star*"]; ok {
		return &OpaqueV{base{e.Loc}, v.(*OpaqueV).Path + "." + e.Id}
	}
	if (ev.speculating && ev.kern == nil) || ev.tryDepth > 0 {
		return poison(e.Loc)
	}
	return ev.errorf(e.Loc, CodeUnresolved, "name '%s' is not defined", e.Id)
}

func (ev *evaluator) constant(e *syntax.Constant) Value {
	sp := e.Loc
	switch e.Kind {
	case syntax.Int:
		s := strings.ReplaceAll(e.Value, "_", "")
		n, ok := new(big.Int).SetString(s, 0)
		if !ok {
			// Python allows leading zeros only for 0; SetString with base 0
			// rejects "00"; treat it as decimal.
			n, ok = new(big.Int).SetString(strings.TrimLeft(s, "0")+"0", 10)
			if ok && strings.Trim(s, "0") == "" {
				return &IntV{base{sp}, 0}
			}
			return ev.pyErrorf(sp, "invalid integer literal %s", e.Value)
		}
		if !n.IsInt64() {
			return ev.pyErrorf(sp, "integer %s does not fit in 64 bits", e.Value)
		}
		return &IntV{base{sp}, n.Int64()}
	case syntax.Float:
		f, err := strconv.ParseFloat(strings.ReplaceAll(e.Value, "_", ""), 64)
		if err != nil && !math.IsInf(f, 0) {
			return ev.pyErrorf(sp, "invalid float literal %s", e.Value)
		}
		return &FloatV{base{sp}, f}
	case syntax.String, syntax.Bytes:
		return &StrV{base{sp}, e.Str}
	case syntax.True:
		return &BoolV{base{sp}, true}
	case syntax.False:
		return &BoolV{base{sp}, false}
	case syntax.None:
		return &NoneV{base{sp}}
	case syntax.Ellipsis:
		return &MarkerV{base: base{sp}, Name: "Ellipsis"}
	}
	return &OpaqueV{base{sp}, e.Value}
}

func (ev *evaluator) joinedStr(fr *frame, e *syntax.JoinedStr) Value {
	var b strings.Builder
	for _, p := range e.Parts {
		v := ev.expr(fr, p)
		if isErr(v) {
			return v
		}
		s, ok := v.(*StrV)
		if !ok {
			return ev.pyErrorf(p.Span(), "f-string part is %s", v.TypeName())
		}
		b.WriteString(s.V)
	}
	return &StrV{base{e.Loc}, b.String()}
}

func (ev *evaluator) formatted(fr *frame, e *syntax.FormattedValue) Value {
	v := ev.expr(fr, e.Value)
	if isErr(v) {
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
	switch e.Conversion {
	case 'r', 'a':
		v = &StrV{base{v.Span()}, Repr(v)}
	case 's':
		v = &StrV{base{v.Span()}, pyStr(v)}
	}
	s, ok := formatValue(v, spec)
	if !ok {
		return ev.pyErrorf(e.Loc, "unsupported format spec %q for %s", spec, v.TypeName())
	}
	return &StrV{base{e.Loc}, s}
}

// formatValue implements the common part of Python's format mini-language:
// [[fill]align][sign][0][width][,][.precision][type].
func formatValue(v Value, spec string) (string, bool) {
	if spec == "" {
		return pyStr(v), true
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
		w = w*10 + int(spec[i]-'0')
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
			prec = prec*10 + int(spec[i]-'0')
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
		n, _ := toInt(x)
		if typ == 'f' || typ == 'e' || typ == 'g' || typ == '%' {
			return formatValue(&FloatV{V: float64(n)}, spec)
		}
		neg = n < 0
		if neg {
			n = -n
		}
		switch typ {
		case 0, 'd':
			body = strconv.FormatInt(n, 10)
		case 'x':
			body = strconv.FormatInt(n, 16)
		case 'X':
			body = strings.ToUpper(strconv.FormatInt(n, 16))
		case 'b':
			body = strconv.FormatInt(n, 2)
		case 'o':
			body = strconv.FormatInt(n, 8)
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
		body = pyStr(v)
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

func (ev *evaluator) dictDisplay(fr *frame, e *syntax.Dict) Value {
	d := newDict(e.Loc)
	for i, k := range e.Keys {
		if k == nil {
			v := ev.expr(fr, e.Values[i])
			if isErr(v) {
				continue
			}
			src, ok := v.(*DictV)
			if !ok {
				ev.pyErrorf(e.Values[i].Span(), "'%s' object is not a mapping", v.TypeName())
				continue
			}
			for j := range src.Keys {
				d.set(src.Keys[j], src.Vals[j])
			}
			continue
		}
		kv := ev.expr(fr, k)
		vv := ev.expr(fr, e.Values[i])
		if errIn(kv) != nil {
			continue // an unknown key: lookups with it are unknown too
		}
		if !d.set(kv, vv) {
			ev.pyErrorf(k.Span(), "unhashable type: '%s'", kv.TypeName())
		}
	}
	return d
}

// comprehension evaluates generators in a child scope, calling body for
// each innermost binding.
func (ev *evaluator) comprehension(fr *frame, gens []*syntax.Comprehension, span source.Span, body func(*frame, *[]Value), isDict bool) Value {
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
		if isErr(it) {
			bad = it
			return false
		}
		next, ok := ev.iterator(it, g.Iter.Span())
		if !ok {
			bad = ev.pyErrorf(g.Iter.Span(), "'%s' object is not iterable", it.TypeName())
			return false
		}
		for {
			x, more := next()
			if !more {
				return true
			}
			if !ev.step(g.Loc) {
				bad = poison(span)
				return false
			}
			ev.assign(inner, g.Target, x, g.Iter.Span(), false)
			keep := true
			for _, cond := range g.Ifs {
				c := ev.expr(inner, cond)
				if isErr(c) {
					bad = c
					return false
				}
				if _, ok := c.(*ExprV); ok {
					bad = ev.pyErrorf(cond.Span(), "comprehension condition is a device value")
					return false
				}
				if !truthy(c) {
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
		d := newDict(span)
		for i := 0; i+1 < len(acc); i += 2 {
			if !d.set(acc[i], acc[i+1]) && !isErr(acc[i]) {
				return ev.pyErrorf(acc[i].Span(), "unhashable type: '%s'", acc[i].TypeName())
			}
		}
		return d
	}
	return &ListV{base{span}, acc}
}

func (ev *evaluator) ifExp(fr *frame, e *syntax.IfExp) Value {
	c := ev.expr(fr, e.Test)
	if isErr(c) {
		return c
	}
	if ce, ok := c.(*ExprV); ok {
		a := ev.expr(fr, e.Body)
		b := ev.expr(fr, e.OrElse)
		if isErr(a) {
			return a
		}
		if isErr(b) {
			return b
		}
		ae, aok := ev.toIR(a, ir.DataType{})
		be, bok := ev.toIR(b, exprType(ae))
		if !aok || !bok {
			return ev.pyErrorf(e.Loc, "a device conditional expression needs scalar branches")
		}
		return &ExprV{base: base{e.Loc}, E: &ir.Select{Cond: ce.E, A: ae, B: be, Span: e.Loc}}
	}
	if truthy(c) {
		return ev.expr(fr, e.Body)
	}
	return ev.expr(fr, e.OrElse)
}

func (ev *evaluator) sliceValue(fr *frame, e *syntax.Slice) Value {
	part := func(x syntax.Expr) Value {
		if x == nil {
			return &NoneV{base{e.Loc}}
		}
		return ev.expr(fr, x)
	}
	return &SliceV{base{e.Loc}, part(e.Lower), part(e.Upper), part(e.Step)}
}

// indexValues evaluates a subscript index: the elements of an unparenthesized
// tuple index (slices become *SliceV), or the single index.
func (ev *evaluator) indexValues(fr *frame, idx syntax.Expr) ([]Value, bool) {
	if t, ok := idx.(*syntax.Tuple); ok && !t.Parens {
		return ev.exprList(fr, t.Elts), true
	}
	if st, ok := idx.(*syntax.Starred); ok {
		return ev.exprList(fr, []syntax.Expr{st}), true
	}
	return []Value{ev.expr(fr, idx)}, false
}

func keyOf(idx []Value, isTuple bool, span source.Span) Value {
	if isTuple {
		return &TupleV{base{span}, idx}
	}
	return idx[0]
}

// ---- truthiness and iteration ----

func truthy(v Value) bool {
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
func (ev *evaluator) iterator(v Value, span source.Span) (func() (Value, bool), bool) {
	switch v := v.(type) {
	case *RangeV:
		i, n := int64(0), rangeLen(v)
		return func() (Value, bool) {
			if i >= n {
				return nil, false
			}
			x := v.Start + i*v.Step
			i++
			return &IntV{base{span}, x}, true
		}, true
	}
	elts, ok := ev.iterate(v, span)
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

// iterate materializes a Python iterable (ranges up to the step budget).
func (ev *evaluator) iterate(v Value, span source.Span) ([]Value, bool) {
	switch v := v.(type) {
	case *TupleV:
		return v.Elts, true
	case *ListV:
		return append([]Value(nil), v.Elts...), true
	case *DictV:
		return append([]Value(nil), v.Keys...), true
	case *StrV:
		var out []Value
		for _, r := range v.V {
			out = append(out, &StrV{base{v.span}, string(r)})
		}
		return out, true
	case *RangeV:
		n := rangeLen(v)
		if n > int64(ev.opts.MaxSteps) {
			ev.step(span)
			ev.steps = ev.opts.MaxSteps
			ev.step(span)
			return nil, false
		}
		out := make([]Value, 0, n)
		for i := int64(0); i < n; i++ {
			out = append(out, &IntV{base{span}, v.Start + i*v.Step})
		}
		ev.steps += int(n) / 4
		return out, true
	}
	return nil, false
}

// ---- conversions ----

// toInt returns v as an int when it is a Python int/bool or a constant
// integer device expression.
func toInt(v Value) (int64, bool) {
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
	if n, ok := toInt(v); ok {
		return float64(n), true
	}
	return 0, false
}

// isPyNum reports whether v is a Python int, bool or float.
func isPyNum(v Value) bool {
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
func (ev *evaluator) sliceIndices(s *SliceV, n int) ([]int, bool) {
	step := int64(1)
	if _, ok := s.Step.(*NoneV); !ok {
		st, ok := toInt(s.Step)
		if !ok || st == 0 {
			return nil, false
		}
		step = st
	}
	get := func(v Value, def int64) (int64, bool) {
		if _, ok := v.(*NoneV); ok {
			return def, true
		}
		x, ok := toInt(v)
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
	var lo, hi int64
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
		return nil, false
	}
	var out []int
	for i := lo; (step > 0 && i < hi) || (step < 0 && i > hi); i += step {
		out = append(out, int(i))
	}
	return out, true
}

func (ev *evaluator) getItem(fr *frame, obj Value, idx []Value, isTuple bool, e *syntax.Subscript) Value {
	sp := e.Loc
	if isErr(obj) {
		if o, ok := obj.(*OpaqueV); ok {
			return &OpaqueV{base{sp}, o.Path + "[...]"}
		}
		return obj
	}
	switch o := obj.(type) {
	case *BufferV:
		return ev.bufferIndex(o, idx, e)
	case *SpecBuilderV:
		return ev.specSubscript(o, e, idx, isTuple)
	case *DTypeV:
		if !o.Ctor {
			break
		}
		return &AnnotV{base: base{sp}, Kind: "local", DT: o.DT, Shape: keyOf(idx, isTuple, sp)}
	case *MarkerV:
		switch o.Name {
		case "T.let":
			return &MarkerV{base: base{sp}, Name: "T.let", Arg: keyOf(idx, isTuple, sp)}
		case "T.Buffer":
			args := idx
			if !isTuple {
				args = idx
			}
			return ev.bufferAnnot(&call{span: sp, args: args, argSpans: spansOf(args)})
		}
	case *BuiltinV:
		return &OpaqueV{base{sp}, o.Name + "[...]"} // typing: tuple[int, ...]
	case *IntrinsicV:
		if len(idx) == 1 {
			if s, ok := idx[0].(*StrV); ok {
				return &IntrinsicV{base{sp}, o.Path + "." + s.V}
			}
		}
	case *DictV:
		k := keyOf(idx, isTuple, sp)
		if x := errIn(k); x != nil {
			return x
		}
		v, found, hashable := o.get(k)
		if !hashable {
			return ev.pyErrorf(sp, "unhashable type: '%s'", k.TypeName())
		}
		if !found {
			return ev.pyErrorf(e.Index.Span(), "KeyError: %s", Repr(k))
		}
		return v
	case *TupleV, *ListV, *StrV, *RangeV:
		if isTuple {
			return ev.pyErrorf(e.Index.Span(), "%s indices must be integers or slices, not tuple", obj.TypeName())
		}
		return ev.seqIndex(obj, idx[0], e.Index.Span(), sp)
	}
	for _, x := range idx {
		if isErr(x) {
			return x
		}
	}
	return ev.pyErrorf(sp, "'%s' object is not subscriptable", obj.TypeName())
}

func spansOf(vs []Value) []source.Span {
	out := make([]source.Span, len(vs))
	for i, v := range vs {
		out[i] = v.Span()
	}
	return out
}

func seqElts(obj Value) []Value {
	switch o := obj.(type) {
	case *TupleV:
		return o.Elts
	case *ListV:
		return o.Elts
	case *StrV:
		var out []Value
		for _, r := range o.V {
			out = append(out, &StrV{base{o.span}, string(r)})
		}
		return out
	}
	return nil
}

func (ev *evaluator) seqIndex(obj, idx Value, idxSpan, sp source.Span) Value {
	if isErr(idx) {
		return idx
	}
	if r, ok := obj.(*RangeV); ok {
		n := rangeLen(r)
		i, ok := toInt(idx)
		if !ok {
			return ev.pyErrorf(idxSpan, "range indices must be integers, not %s", idx.TypeName())
		}
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return ev.pyErrorf(idxSpan, "range object index out of range")
		}
		return &IntV{base{sp}, r.Start + i*r.Step}
	}
	elts := seqElts(obj)
	if s, ok := idx.(*SliceV); ok {
		is, ok := ev.sliceIndices(s, len(elts))
		if !ok {
			return ev.pyErrorf(idxSpan, "slice indices must be integers or None")
		}
		out := make([]Value, len(is))
		for k, i := range is {
			out[k] = elts[i]
		}
		switch obj.(type) {
		case *TupleV:
			return &TupleV{base{sp}, out}
		case *StrV:
			var b strings.Builder
			for _, x := range out {
				b.WriteString(x.(*StrV).V)
			}
			return &StrV{base{sp}, b.String()}
		}
		return &ListV{base{sp}, out}
	}
	i, ok := toInt(idx)
	if !ok {
		return ev.pyErrorf(idxSpan, "%s indices must be integers or slices, not %s", obj.TypeName(), idx.TypeName())
	}
	j, ok := normIndex(i, len(elts))
	if !ok {
		return ev.pyErrorf(idxSpan, "%s index out of range", obj.TypeName())
	}
	return elts[j]
}

func (ev *evaluator) setItem(fr *frame, obj Value, idx []Value, isTuple bool, v Value, vspan source.Span, e *syntax.Subscript) {
	if isErr(obj) {
		return
	}
	switch o := obj.(type) {
	case *BufferV:
		ev.bufferStore(fr, o, idx, v, vspan, e)
	case *DictV:
		k := keyOf(idx, isTuple, e.Loc)
		if !o.set(k, v) && !isErr(k) {
			ev.pyErrorf(e.Index.Span(), "unhashable type: '%s'", k.TypeName())
		}
	case *ListV:
		if isTuple || len(idx) != 1 {
			ev.pyErrorf(e.Index.Span(), "list indices must be integers or slices, not tuple")
			return
		}
		if s, ok := idx[0].(*SliceV); ok {
			is, ok := ev.sliceIndices(s, len(o.Elts))
			src, ok2 := ev.iterate(v, e.Loc)
			if !ok || !ok2 {
				ev.pyErrorf(e.Loc, "unsupported slice assignment")
				return
			}
			if _, none := s.Step.(*NoneV); none {
				lo, hi := len(o.Elts), len(o.Elts)
				if len(is) > 0 {
					lo, hi = is[0], is[len(is)-1]+1
				} else if l, ok := toInt(s.Lo); ok {
					if j, ok := normIndex(l, len(o.Elts)); ok {
						lo, hi = j, j
					}
				}
				n := append(append(append([]Value(nil), o.Elts[:lo]...), src...), o.Elts[hi:]...)
				o.Elts = n
				return
			}
			if len(is) != len(src) {
				ev.pyErrorf(e.Loc, "attempt to assign sequence of size %d to extended slice of size %d", len(src), len(is))
				return
			}
			for k, i := range is {
				o.Elts[i] = src[k]
			}
			return
		}
		i, ok := toInt(idx[0])
		if !ok {
			if !isErr(idx[0]) {
				ev.pyErrorf(e.Index.Span(), "list indices must be integers or slices, not %s", idx[0].TypeName())
			}
			return
		}
		j, ok := normIndex(i, len(o.Elts))
		if !ok {
			ev.pyErrorf(e.Index.Span(), "list assignment index out of range")
			return
		}
		o.Elts[j] = v
	default:
		ev.pyErrorf(e.Loc, "'%s' object does not support item assignment", obj.TypeName())
	}
}
