package eval

import (
	"math"
	"math/big"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// propagate returns the value a binary operation yields when an operand is
// poison, unbound or opaque, or nil when both are ordinary values.
func propagate(span source.Span, vs ...Value) Value {
	for _, v := range vs {
		if _, ok := v.(*PoisonV); ok {
			return v
		}
	}
	for _, v := range vs {
		if _, ok := v.(*UnboundV); ok {
			return v
		}
	}
	for _, v := range vs {
		if o, ok := v.(*OpaqueV); ok {
			return &OpaqueV{Base{span}, o.Path}
		}
	}
	return nil
}

var irBinOps = map[string]ir.BinOp{
	"+": ir.Add, "-": ir.Sub, "*": ir.Mul, "//": ir.FloorDiv, "%": ir.FloorMod, "/": ir.Div,
	"<<": ir.Shl, ">>": ir.Shr, "&": ir.BitAnd, "|": ir.BitOr, "^": ir.BitXor,
}

// Binop evaluates x op y. inplace is set for augmented assignment (lists
// are extended in place).
func (ev *Evaluator) Binop(op string, x, y Value, span source.Span, inplace bool) Value {
	if p := propagate(span, x, y); p != nil {
		return p
	}
	x, y = intEnumOperand(x), intEnumOperand(y) // IntEnum members (class.go)
	// Layout mini-language first: `4 @ laneid`, spec + spec + offset.
	if v, ok := ev.libLayoutBinop(op, x, y, span); ok { // library.go
		return v
	}
	if IsPyNum(x) && IsPyNum(y) {
		return ev.numBinop(op, x, y, span)
	}
	_, xd := x.(*ExprV)
	_, yd := y.(*ExprV)
	if xd || yd {
		return ev.deviceBinop(op, x, y, span)
	}
	switch op {
	case "+":
		switch a := x.(type) {
		case *StrV:
			if b, ok := y.(*StrV); ok {
				if !ev.charge(span, "str", strCost(int64(len(a.V))+int64(len(b.V)))) {
					return Poison(span)
				}
				return &StrV{Base{span}, a.V + b.V}
			}
		case *TupleV:
			if b, ok := y.(*TupleV); ok {
				if !ev.charge(span, "tuple", seqCost(int64(len(a.Elts))+int64(len(b.Elts)), false)) {
					return Poison(span)
				}
				return &TupleV{Base{span}, append(append([]Value(nil), a.Elts...), b.Elts...)}
			}
		case *ListV:
			if inplace {
				if ev.extend(a, y, span) {
					return a
				}
				if ev.Halted {
					return Poison(span)
				}
			}
			if b, ok := y.(*ListV); ok {
				if !ev.charge(span, "list", seqCost(int64(len(a.Elts))+int64(len(b.Elts)), false)) {
					return Poison(span)
				}
				return &ListV{Base{span}, append(append([]Value(nil), a.Elts...), b.Elts...)}
			}
		}
	case "*":
		seq, n := x, y
		if IsIntLike(x) {
			seq, n = y, x
		}
		if k, ok := ToInt(n); ok && IsIntLike(n) {
			switch seq.(type) {
			case *StrV, *TupleV, *ListV:
				return ev.repeat(seq, k, span)
			}
		}
	case "%":
		if s, ok := x.(*StrV); ok {
			return ev.percentFormat(s, y, span)
		}
	case "|":
		if a, ok := x.(*DictV); ok {
			if b, ok := y.(*DictV); ok {
				d := a
				if !inplace {
					d = NewDict(span)
					for i := range a.Keys {
						ev.setEntry(d, a.Keys[i], a.Vals[i], span)
					}
				}
				for i := range b.Keys {
					ev.setEntry(d, b.Keys[i], b.Vals[i], span)
				}
				if ev.Halted {
					return Poison(span)
				}
				return d
			}
		}
	}
	return ev.PyErrorf(span, "unsupported operand type(s) for %s: '%s' and '%s'", op, x.TypeName(), y.TypeName())
}

func IsIntLike(v Value) bool {
	switch v.(type) {
	case *IntV, *BoolV:
		return true
	}
	return false
}

// repeat is seq * n, charged before it is built.
func (ev *Evaluator) repeat(v Value, n int64, span source.Span) Value {
	n = max(n, 0)
	var elts []Value
	switch a := v.(type) {
	case *StrV:
		if !ev.charge(span, "str", strCost(mulCost(int64(len(a.V)), n))) {
			return Poison(span)
		}
		return &StrV{Base{span}, strings.Repeat(a.V, int(n))}
	case *TupleV:
		elts = a.Elts
	case *ListV:
		elts = a.Elts
	}
	if !ev.charge(span, v.TypeName(), seqCost(mulCost(int64(len(elts)), n), false)) {
		return Poison(span)
	}
	out := make([]Value, 0, int64(len(elts))*n)
	for i := int64(0); i < n && len(elts) > 0; i++ {
		out = append(out, elts...)
	}
	if _, ok := v.(*TupleV); ok {
		return &TupleV{Base{span}, out}
	}
	return &ListV{Base{span}, out}
}

// extend appends the elements of iterable y to l (list += y, l.extend(y)),
// charged; false when y is not iterable or the budget ran out.
func (ev *Evaluator) extend(l *ListV, y Value, span source.Span) bool {
	elts, ok := ev.Iterate(y, span)
	if !ok || !ev.charge(span, "list", mulCost(int64(len(elts)), costSlot)) {
		return false
	}
	l.Elts = append(l.Elts, elts...)
	return true
}

func (ev *Evaluator) percentFormat(s *StrV, y Value, span source.Span) Value {
	args := []Value{y}
	if t, ok := y.(*TupleV); ok {
		args = t.Elts
	}
	// The literal text is at most the format's length; each converted
	// argument is charged before it is appended.
	if !ev.charge(span, "str", strCost(int64(len(s.V)))) {
		return Poison(span)
	}
	var b strings.Builder
	k := 0
	f := s.V
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("0123456789.-+ ", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			return ev.PyErrorf(span, "incomplete format")
		}
		conv := f[j]
		spec := f[i+1 : j]
		i = j
		if conv == '%' {
			b.WriteByte('%')
			continue
		}
		if k >= len(args) {
			return ev.PyErrorf(span, "not enough arguments for format string")
		}
		a := args[k]
		k++
		switch conv {
		case 's', 'r':
			str, ok := ev.strOf(span, a, conv == 'r')
			if !ok {
				return Poison(span)
			}
			a = &StrV{Base{span}, str}
			conv = 0
		case 'i', 'u':
			conv = 'd'
		}
		if strings.HasPrefix(spec, "-") {
			spec = "<" + spec[1:]
		}
		full := spec
		if conv != 0 {
			full += string(conv)
		}
		out, ok := ev.formatValue(a, full, span)
		if ev.Halted {
			return Poison(span)
		}
		if !ok {
			return ev.PyErrorf(span, "unsupported format %%%s", full)
		}
		if !ev.charge(span, "str", int64(len(out))) {
			return Poison(span)
		}
		b.WriteString(out)
	}
	return &StrV{Base{span}, b.String()}
}

func (ev *Evaluator) numBinop(op string, x, y Value, span source.Span) Value {
	_, xf := x.(*FloatV)
	_, yf := y.(*FloatV)
	if !xf && !yf && op != "/" {
		a, _ := ToInt(x)
		b, _ := ToInt(y)
		_, xb := x.(*BoolV)
		_, yb := y.(*BoolV)
		if xb && yb && (op == "&" || op == "|" || op == "^") {
			var r bool
			switch op {
			case "&":
				r = a&b != 0
			case "|":
				r = (a | b) != 0
			default:
				r = (a ^ b) != 0
			}
			return &BoolV{Base{span}, r}
		}
		r, err := intOp(op, a, b)
		switch err {
		case "":
			return &IntV{Base{span}, r}
		case "float":
			return ev.numBinop(op, &FloatV{Base{x.Span()}, float64(a)}, y, span)
		}
		return ev.PyErrorf(span, "%s", err)
	}
	a, _ := toFloat(x)
	b, _ := toFloat(y)
	var r float64
	switch op {
	case "+":
		r = a + b
	case "-":
		r = a - b
	case "*":
		r = a * b
	case "/":
		if b == 0 {
			return ev.PyErrorf(span, "division by zero")
		}
		r = a / b
	case "//":
		if b == 0 {
			return ev.PyErrorf(span, "float floor division by zero")
		}
		r = math.Floor(a / b)
	case "%":
		if b == 0 {
			return ev.PyErrorf(span, "float modulo")
		}
		r = math.Mod(a, b)
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
	case "**":
		r = math.Pow(a, b)
	default:
		return ev.PyErrorf(span, "unsupported operand type(s) for %s: '%s' and '%s'", op, x.TypeName(), y.TypeName())
	}
	return &FloatV{Base{span}, r}
}

// intOp computes a op b on Python ints; the error is a Python message, or
// "float" when the result is a float (negative power).
func intOp(op string, a, b int64) (int64, string) {
	big1 := func(f func(x, y *big.Int) *big.Int) (int64, string) {
		r := f(big.NewInt(a), big.NewInt(b))
		if !r.IsInt64() {
			return 0, "integer overflow (result does not fit in 64 bits)"
		}
		return r.Int64(), ""
	}
	switch op {
	case "+":
		return big1(func(x, y *big.Int) *big.Int { return x.Add(x, y) })
	case "-":
		return big1(func(x, y *big.Int) *big.Int { return x.Sub(x, y) })
	case "*":
		return big1(func(x, y *big.Int) *big.Int { return x.Mul(x, y) })
	case "//":
		if b == 0 {
			return 0, "integer division or modulo by zero"
		}
		if a == math.MinInt64 && b == -1 {
			return 0, "integer overflow (result does not fit in 64 bits)"
		}
		return floorDiv(a, b), ""
	case "%":
		if b == 0 {
			return 0, "integer division or modulo by zero"
		}
		if b == -1 {
			return 0, ""
		}
		return a - floorDiv(a, b)*b, ""
	case "**":
		if b < 0 {
			return 0, "float"
		}
		if b > 64 && a != 0 && a != 1 && a != -1 {
			return 0, "integer overflow (result does not fit in 64 bits)"
		}
		return big1(func(x, y *big.Int) *big.Int { return x.Exp(x, y, nil) })
	case "<<":
		if b < 0 {
			return 0, "negative shift count"
		}
		if b > 64 {
			if a == 0 {
				return 0, ""
			}
			return 0, "integer overflow (result does not fit in 64 bits)"
		}
		return big1(func(x, y *big.Int) *big.Int { return x.Lsh(x, uint(b)) })
	case ">>":
		if b < 0 {
			return 0, "negative shift count"
		}
		if b > 63 {
			if a < 0 {
				return -1, ""
			}
			return 0, ""
		}
		return a >> uint(b), ""
	case "&":
		return a & b, ""
	case "|":
		return a | b, ""
	case "^":
		return a ^ b, ""
	case "@":
		return 0, "unsupported operand type(s) for @: 'int' and 'int'"
	}
	return 0, "unsupported operator " + op
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (ev *Evaluator) deviceBinop(op string, x, y Value, span source.Span) Value {
	var xe, ye ir.Expr
	var ok1, ok2 bool
	if xv, ok := x.(*ExprV); ok {
		xe, ok1 = xv.E, true
		ye, ok2 = ev.ToIR(y, ExprType(xe))
	} else {
		ye, ok2 = y.(*ExprV).E, true
		xe, ok1 = ev.ToIR(x, ExprType(ye))
	}
	if !ok1 || !ok2 {
		return ev.PyErrorf(span, "unsupported operand type(s) for %s: '%s' and '%s'", op, x.TypeName(), y.TypeName())
	}
	if op == "**" {
		return &ExprV{Base: Base{span}, E: &ir.Call{Op: "pow", Args: []ir.Expr{xe, ye}, Type: ExprType(xe), Span: span}}
	}
	bop, ok := irBinOps[op]
	if !ok {
		return ev.PyErrorf(span, "unsupported operand type(s) for %s: '%s' and '%s'", op, x.TypeName(), y.TypeName())
	}
	v := ev.slabs.exprs.new()
	*v = ExprV{Base: Base{span}, E: mkBin(&ev.slabs.bins, bop, xe, ye, span)}
	return v
}

// MkBin builds a op b with integer constant folding and the identities
// x+0, x-0, x*1, x*0, x//1, x%1.
func MkBin(op ir.BinOp, a, b ir.Expr, span source.Span) ir.Expr {
	return mkBin(nil, op, a, b, span)
}

// mkBin is MkBin with its binary nodes taken from bins when not nil
// (slab.go).
func mkBin(bins *slab[ir.Binary], op ir.BinOp, a, b ir.Expr, span source.Span) ir.Expr {
	ca, aok := a.(*ir.IntImm)
	cb, bok := b.(*ir.IntImm)
	if aok && bok && ca.Type.Code != ir.Bool && cb.Type.Code != ir.Bool {
		if r, err := intOp(binOpPy[op], ca.Value, cb.Value); err == "" && binOpPy[op] != "" {
			return &ir.IntImm{Value: r, Type: ca.Type, Span: span}
		}
		if c, ok := foldCompare(op, ca.Value, cb.Value); ok {
			t := ir.BoolT
			if op == ir.Min || op == ir.Max {
				t = ca.Type
			}
			return &ir.IntImm{Value: c, Type: t, Span: span}
		}
	}
	switch op {
	case ir.Add:
		if aok && ca.Value == 0 && ca.Type.Code != ir.Bool {
			return b
		}
		if bok && cb.Value == 0 && cb.Type.Code != ir.Bool {
			return a
		}
	case ir.Sub:
		if bok && cb.Value == 0 {
			return a
		}
	case ir.Mul:
		if aok && ca.Value == 1 {
			return b
		}
		if bok && cb.Value == 1 {
			return a
		}
		if (aok && ca.Value == 0) || (bok && cb.Value == 0) {
			t := ExprType(a)
			if !t.IsValid() || t.IsFloat() {
				t = ir.Int32
			}
			return &ir.IntImm{Value: 0, Type: t, Span: span}
		}
	case ir.FloorDiv:
		if bok && cb.Value == 1 {
			return a
		}
	case ir.FloorMod:
		if bok && cb.Value == 1 {
			return &ir.IntImm{Value: 0, Type: cb.Type, Span: span}
		}
	}
	fa, faok := a.(*ir.FloatImm)
	fb, fbok := b.(*ir.FloatImm)
	if faok && fbok {
		var r float64
		switch op {
		case ir.Add:
			r = fa.Value + fb.Value
		case ir.Sub:
			r = fa.Value - fb.Value
		case ir.Mul:
			r = fa.Value * fb.Value
		case ir.Div:
			if fb.Value == 0 {
				return newBinary(bins, op, a, b, span)
			}
			r = fa.Value / fb.Value
		default:
			return newBinary(bins, op, a, b, span)
		}
		return &ir.FloatImm{Value: r, Type: fa.Type, Span: span}
	}
	return newBinary(bins, op, a, b, span)
}

var binOpPy = map[ir.BinOp]string{
	ir.Add: "+", ir.Sub: "-", ir.Mul: "*", ir.FloorDiv: "//", ir.FloorMod: "%",
	ir.Shl: "<<", ir.Shr: ">>", ir.BitAnd: "&", ir.BitOr: "|", ir.BitXor: "^",
}

func foldCompare(op ir.BinOp, a, b int64) (int64, bool) {
	var r bool
	switch op {
	case ir.EQ:
		r = a == b
	case ir.NE:
		r = a != b
	case ir.LT:
		r = a < b
	case ir.LE:
		r = a <= b
	case ir.GT:
		r = a > b
	case ir.GE:
		r = a >= b
	case ir.Min:
		return min(a, b), true
	case ir.Max:
		return max(a, b), true
	default:
		return 0, false
	}
	if r {
		return 1, true
	}
	return 0, true
}

// ToIR converts a scalar value to an ir.Expr. Python numbers take the dtype
// hint when it fits (an int next to a float16 expression becomes a float16
// constant); otherwise ints are int32 and floats float32, as in TVM.
func (ev *Evaluator) ToIR(v Value, hint ir.DataType) (ir.Expr, bool) {
	switch v := v.(type) {
	case *ExprV:
		if _, ok := v.E.(*ir.Region); ok {
			return nil, false
		}
		return v.E, true
	case *IntV:
		if hint.IsFloat() {
			return &ir.FloatImm{Value: float64(v.V), Type: hint, Span: v.At}, true
		}
		t := ir.Int32
		if hint.Code == ir.Int || hint.Code == ir.UInt {
			t = hint
		}
		if t == ir.Int32 && (v.V > math.MaxInt32 || v.V < math.MinInt32) {
			t = ir.Int64
		}
		x := ev.slabs.intImms.new()
		*x = ir.IntImm{Value: v.V, Type: t, Span: v.At}
		return x, true
	case *BoolV:
		n := int64(0)
		if v.V {
			n = 1
		}
		return &ir.IntImm{Value: n, Type: ir.BoolT, Span: v.At}, true
	case *FloatV:
		t := ir.Float32
		if hint.IsFloat() {
			t = hint
		}
		return &ir.FloatImm{Value: v.V, Type: t, Span: v.At}, true
	case *EnumV:
		return &ir.IntImm{Value: v.V, Type: ir.Int32, Span: v.At}, true
	}
	return nil, false
}

func newBinary(bins *slab[ir.Binary], op ir.BinOp, a, b ir.Expr, span source.Span) *ir.Binary {
	if bins == nil {
		return &ir.Binary{Op: op, A: a, B: b, Span: span}
	}
	x := bins.new()
	*x = ir.Binary{Op: op, A: a, B: b, Span: span}
	return x
}

// ExprType is the result dtype of e (invalid when unknown or void).
func ExprType(e ir.Expr) ir.DataType {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Type
	case *ir.FloatImm:
		return e.Type
	case *ir.Var:
		return e.Type
	case *ir.Load:
		return e.Buf.Dtype
	case *ir.Cast:
		return e.To
	case *ir.Call:
		return e.Type
	case *ir.Binary:
		switch e.Op {
		case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or:
			return ir.BoolT
		}
		if t := ExprType(e.A); t.IsValid() {
			if t2 := ExprType(e.B); t2.IsFloat() && !t.IsFloat() {
				return t2
			}
			return t
		}
		return ExprType(e.B)
	case *ir.Not:
		return ir.BoolT
	case *ir.Neg:
		return ExprType(e.X)
	case *ir.Select:
		return ExprType(e.A)
	case *ir.AddressOf, *ir.BufferData:
		return ir.HandleT
	case *ir.ThreadIndex:
		return ir.Int32
	}
	return ir.DataType{}
}

// ---- unary, boolean and comparison operators ----

func (ev *Evaluator) unary(op string, x Value, span source.Span) Value {
	if p := propagate(span, x); p != nil {
		return p
	}
	switch op {
	case "not":
		if e, ok := x.(*ExprV); ok {
			return &ExprV{Base: Base{span}, E: &ir.Not{X: e.E, Span: span}}
		}
		return &BoolV{Base{span}, !Truthy(x)}
	case "-":
		switch v := x.(type) {
		case *IntV:
			if v.V == math.MinInt64 {
				return ev.PyErrorf(span, "integer overflow (result does not fit in 64 bits)")
			}
			return &IntV{Base{span}, -v.V}
		case *BoolV:
			n, _ := ToInt(v)
			return &IntV{Base{span}, -n}
		case *FloatV:
			return &FloatV{Base{span}, -v.V}
		case *ExprV:
			switch c := v.E.(type) {
			case *ir.IntImm:
				return &ExprV{Base: Base{span}, E: &ir.IntImm{Value: -c.Value, Type: c.Type, Span: span}}
			case *ir.FloatImm:
				return &ExprV{Base: Base{span}, E: &ir.FloatImm{Value: -c.Value, Type: c.Type, Span: span}}
			}
			return &ExprV{Base: Base{span}, E: &ir.Neg{X: v.E, Span: span}}
		}
	case "+":
		switch v := x.(type) {
		case *IntV, *FloatV, *ExprV:
			return v
		case *BoolV:
			n, _ := ToInt(v)
			return &IntV{Base{span}, n}
		}
	case "~":
		switch v := x.(type) {
		case *IntV, *BoolV:
			n, _ := ToInt(v)
			return &IntV{Base{span}, ^n}
		case *ExprV:
			return &ExprV{Base: Base{span}, E: &ir.Call{Op: "bitwise_not", Args: []ir.Expr{v.E}, Type: ExprType(v.E), Span: span}}
		}
	}
	return ev.PyErrorf(span, "bad operand type for unary %s: '%s'", op, x.TypeName())
}

func (ev *Evaluator) boolOp(fr *frame, e *syntax.BoolOp) Value {
	isAnd := e.Op == "and"
	op := ir.Or
	if isAnd {
		op = ir.And
	}
	var acc ir.Expr // non-nil once a device operand was met
	for i, x := range e.Values {
		v := ev.expr(fr, x)
		if IsErr(v) {
			return v
		}
		if ex, ok := v.(*ExprV); ok {
			if acc == nil {
				acc = ex.E
			} else {
				acc = &ir.Binary{Op: op, A: acc, B: ex.E, Span: e.Loc}
			}
			continue
		}
		if acc == nil {
			if i == len(e.Values)-1 || Truthy(v) != isAnd {
				return v // Python short-circuit semantics
			}
			continue
		}
		if Truthy(v) != isAnd {
			return &BoolV{Base{e.Loc}, !isAnd} // dev and False, dev or True
		}
	}
	if b, ok := acc.(*ir.Binary); ok && (b.Op == ir.And || b.Op == ir.Or) {
		b.Span = e.Loc
	}
	return &ExprV{Base: Base{e.Loc}, E: acc}
}

func (ev *Evaluator) compareChain(fr *frame, e *syntax.Compare) Value {
	left := ev.expr(fr, e.Left)
	var acc ir.Expr
	var result Value
	for i, op := range e.Ops {
		right := ev.expr(fr, e.Comparators[i])
		sp := source.Join(left.Span(), right.Span())
		if len(e.Ops) == 1 {
			sp = e.Loc
		}
		r := ev.Compare(op, left, right, sp)
		if IsErr(r) {
			return r
		}
		if ex, ok := r.(*ExprV); ok {
			if acc == nil {
				if result != nil && !Truthy(result) {
					return result
				}
				acc = ex.E
			} else {
				acc = &ir.Binary{Op: ir.And, A: acc, B: ex.E, Span: e.Loc}
			}
		} else if !Truthy(r) {
			if acc == nil {
				return r
			}
			return &BoolV{Base{e.Loc}, false}
		} else if result == nil {
			result = r
		}
		left = right
	}
	if acc != nil {
		return &ExprV{Base: Base{e.Loc}, E: acc}
	}
	return &BoolV{Base{e.Loc}, true}
}

var irCmpOps = map[string]ir.BinOp{"==": ir.EQ, "!=": ir.NE, "<": ir.LT, "<=": ir.LE, ">": ir.GT, ">=": ir.GE}

func (ev *Evaluator) Compare(op string, x, y Value, span source.Span) Value {
	switch op {
	case "is", "is not":
		if p := propagate(span, x, y); p != nil {
			return p
		}
		r := pyIs(x, y)
		if op == "is not" {
			r = !r
		}
		return &BoolV{Base{span}, r}
	case "in", "not in":
		if p := propagate(span, x, y); p != nil {
			return p
		}
		r, ok := ev.contains(y, x, span)
		if ev.Halted {
			return Poison(span)
		}
		if !ok {
			return ev.PyErrorf(span, "argument of type '%s' is not iterable", y.TypeName())
		}
		if op == "not in" {
			r = !r
		}
		return &BoolV{Base{span}, r}
	}
	if p := propagate(span, x, y); p != nil {
		return p
	}
	_, xd := x.(*ExprV)
	_, yd := y.(*ExprV)
	if xd || yd {
		if v, ok := ev.deviceCompare(op, x, y, span); ok {
			return v
		}
		if op == "==" || op == "!=" {
			return &BoolV{Base{span}, (op == "==") == pyEqual(x, y)}
		}
		return ev.PyErrorf(span, "'%s' not supported between instances of '%s' and '%s'", op, x.TypeName(), y.TypeName())
	}
	n := 0
	switch op {
	case "==", "!=":
		r := pyEq(x, y, &n)
		if !ev.compareWork(span, x, y, n) {
			return Poison(span)
		}
		return &BoolV{Base{span}, r == (op == "==")}
	}
	c, ok := pyCmp(x, y, &n)
	if !ev.compareWork(span, x, y, n) {
		return Poison(span)
	}
	if !ok {
		return ev.PyErrorf(span, "'%s' not supported between instances of '%s' and '%s'", op, x.TypeName(), y.TypeName())
	}
	var r bool
	switch op {
	case "<":
		r = c < 0
	case "<=":
		r = c <= 0
	case ">":
		r = c > 0
	case ">=":
		r = c >= 0
	}
	return &BoolV{Base{span}, r}
}

func (ev *Evaluator) deviceCompare(op string, x, y Value, span source.Span) (Value, bool) {
	var xe, ye ir.Expr
	var ok1, ok2 bool
	if xv, ok := x.(*ExprV); ok {
		xe, ok1 = xv.E, true
		ye, ok2 = ev.ToIR(y, ExprType(xe))
	} else {
		ye, ok2 = y.(*ExprV).E, true
		xe, ok1 = ev.ToIR(x, ExprType(ye))
	}
	if !ok1 || !ok2 {
		return nil, false
	}
	r := ev.slabs.exprs.new()
	*r = ExprV{Base: Base{span}, E: mkBin(&ev.slabs.bins, irCmpOps[op], xe, ye, span)}
	return r, true
}

func pyIs(x, y Value) bool {
	switch a := x.(type) {
	case *NoneV:
		_, ok := y.(*NoneV)
		return ok
	case *BoolV:
		b, ok := y.(*BoolV)
		return ok && a.V == b.V
	case *IntV:
		b, ok := y.(*IntV)
		return ok && a.V == b.V && a.V >= -5 && a.V <= 256
	case *StrV:
		b, ok := y.(*StrV)
		return ok && a.V == b.V
	case *EnumV:
		b, ok := y.(*EnumV)
		return ok && a.Type == b.Type && a.Name == b.Name
	case *MarkerV:
		b, ok := y.(*MarkerV)
		return ok && a.Name == b.Name
	}
	return samePtr(x, y)
}

func samePtr(x, y Value) bool {
	switch a := x.(type) {
	case *ListV:
		b, ok := y.(*ListV)
		return ok && a == b
	case *DictV:
		b, ok := y.(*DictV)
		return ok && a == b
	case *BufferV:
		b, ok := y.(*BufferV)
		return ok && a.B == b.B
	case *FuncV:
		b, ok := y.(*FuncV)
		return ok && a == b
	case *ModuleV:
		b, ok := y.(*ModuleV)
		return ok && a.Path == b.Path
	case *AxisV:
		b, ok := y.(*AxisV)
		return ok && a.A == b.A
	case *InstanceV:
		b, ok := y.(*InstanceV)
		return ok && a == b
	case *ClassV:
		b, ok := y.(*ClassV)
		return ok && a == b
	case *BuiltinV: // type(3) is int
		b, ok := y.(*BuiltinV)
		return ok && a == b
	}
	return false
}

// maxCompareNodes bounds the work of one comparison of containers: a list
// that contains itself, or tuples that share their elements (t = (t, t)
// forty times), would otherwise recurse without end or for 2**40 steps.
// Past it the containers compare unequal and unordered, where Python
// would raise RecursionError or take as long. Elements that are the same
// object are equal without a look inside, as in Python.
const maxCompareNodes = 1 << 16

// pyEqual is Python ==.
func pyEqual(x, y Value) bool {
	n := 0
	return pyEq(x, y, &n)
}

func pyEq(x, y Value, n *int) bool {
	if *n++; *n > maxCompareNodes {
		return false
	}
	if IsPyNum(x) && IsPyNum(y) {
		a, _ := toFloat(x)
		b, _ := toFloat(y)
		if IsIntLike(x) && IsIntLike(y) {
			ai, _ := ToInt(x)
			bi, _ := ToInt(y)
			return ai == bi
		}
		return a == b
	}
	if _, ok := y.(*InstanceV); ok { // a str enum member == its value, either side (class.go)
		if _, ok := x.(*InstanceV); !ok {
			x, y = y, x
		}
	}
	switch a := x.(type) {
	case *StrV:
		switch b := y.(type) {
		case *StrV:
			*n += min(len(a.V), len(b.V)) / bytesPerStep // work (compareWork)
			return a.V == b.V
		case *DTypeV:
			return a.V == b.DT.String()
		}
		return false
	case *DTypeV:
		switch b := y.(type) {
		case *StrV:
			return a.DT.String() == b.V
		case *DTypeV:
			return a.DT == b.DT
		}
		return false
	case *NoneV:
		_, ok := y.(*NoneV)
		return ok
	case *TupleV:
		b, ok := y.(*TupleV)
		return ok && eltsEqual(a.Elts, b.Elts, n)
	case *ListV:
		b, ok := y.(*ListV)
		return ok && eltsEqual(a.Elts, b.Elts, n)
	case *DictV:
		b, ok := y.(*DictV)
		if !ok || len(a.Keys) != len(b.Keys) {
			return false
		}
		for i, k := range a.Keys {
			*n += keySize(k, maxKeyBytes, 0) / bytesPerStep // hashed: work
			v, found, _ := b.get(k)
			if !found || !pyEq(a.Vals[i], v, n) {
				return false
			}
		}
		return true
	case *EnumV:
		b, ok := y.(*EnumV)
		return ok && a.Type == b.Type && a.Name == b.Name
	case *InstanceV:
		return instanceEq(a, y, n) // class.go
	case *RangeV:
		b, ok := y.(*RangeV)
		return ok && *a == *b
	case *LayoutV:
		b, ok := y.(*LayoutV)
		return ok && layout.Equal(a.L, b.L)
	case *SliceV:
		b, ok := y.(*SliceV)
		return ok && pyEq(a.Lo, b.Lo, n) && pyEq(a.Hi, b.Hi, n) && pyEq(a.Step, b.Step, n)
	case *ExprV:
		b, ok := y.(*ExprV)
		return ok && a.E == b.E
	}
	if k1, ok := hashKey(x); ok {
		if k2, ok := hashKey(y); ok {
			return k1 == k2
		}
	}
	return samePtr(x, y)
}

func eltsEqual(a, b []Value, n *int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameObject(a[i], b[i]) && !pyEq(a[i], b[i], n) {
			return false
		}
	}
	return true
}

// sameObject reports whether x and y are the same container (Python's
// identity shortcut for the elements of containers).
func sameObject(x, y Value) bool {
	switch a := x.(type) {
	case *TupleV:
		b, ok := y.(*TupleV)
		return ok && a == b
	case *ListV:
		b, ok := y.(*ListV)
		return ok && a == b
	case *DictV:
		b, ok := y.(*DictV)
		return ok && a == b
	}
	return false
}

// pyCompare orders numbers, strings and sequences like Python.
func pyCompare(x, y Value) (int, bool) {
	n := 0
	return pyCmp(x, y, &n)
}

func pyCmp(x, y Value, n *int) (int, bool) {
	if *n++; *n > maxCompareNodes {
		return 0, false
	}
	if IsPyNum(x) && IsPyNum(y) {
		if IsIntLike(x) && IsIntLike(y) {
			a, _ := ToInt(x)
			b, _ := ToInt(y)
			return cmp3(a < b, a > b), true
		}
		a, _ := toFloat(x)
		b, _ := toFloat(y)
		return cmp3(a < b, a > b), true
	}
	switch a := x.(type) {
	case *StrV:
		if b, ok := y.(*StrV); ok {
			*n += min(len(a.V), len(b.V)) / bytesPerStep // work (compareWork)
			return strings.Compare(a.V, b.V), true
		}
	case *TupleV:
		if b, ok := y.(*TupleV); ok {
			return seqCompare(a.Elts, b.Elts, n)
		}
	case *ListV:
		if b, ok := y.(*ListV); ok {
			return seqCompare(a.Elts, b.Elts, n)
		}
	}
	return 0, false
}

func cmp3(lt, gt bool) int {
	if lt {
		return -1
	}
	if gt {
		return 1
	}
	return 0
}

func seqCompare(a, b []Value, n *int) (int, bool) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if sameObject(a[i], b[i]) || pyEq(a[i], b[i], n) {
			continue
		}
		return pyCmp(a[i], b[i], n)
	}
	return cmp3(len(a) < len(b), len(a) > len(b)), true
}

// compareWork charges a comparison that visited n values (containers
// and their elements), or two strs.
func (ev *Evaluator) compareWork(span source.Span, x, y Value, n int) bool {
	if a, ok := x.(*StrV); ok {
		if b, ok := y.(*StrV); ok {
			return ev.work(span, min(len(a.V), len(b.V)), bytesPerStep)
		}
	}
	return n <= 1 || ev.work(span, n, elemsPerStep)
}

// contains is Python's `x in container`, charged as work at span; the
// caller checks ev.halted.
func (ev *Evaluator) contains(container, x Value, span source.Span) (bool, bool) {
	switch c := container.(type) {
	case *StrV:
		s, ok := x.(*StrV)
		if !ok {
			return false, false
		}
		if !ev.work(span, len(c.V), bytesPerStep) {
			return false, true
		}
		return strings.Contains(c.V, s.V), true
	case *DictV:
		if !ev.hashWork(span, x) {
			return false, true
		}
		_, found, _ := c.get(x)
		return found, true
	case *RangeV:
		n, ok := ToInt(x)
		if !ok {
			return false, true
		}
		if c.Step > 0 {
			return n >= c.Start && n < c.Stop && (n-c.Start)%c.Step == 0, true
		}
		return n <= c.Start && n > c.Stop && (c.Start-n)%(-c.Step) == 0, true
	case *TupleV, *ListV:
		// Charged as it goes, by the values compared: the elements may be
		// large containers themselves.
		n := 0
		for _, e := range SeqElts(c) {
			k := 0
			eq := pyEq(e, x, &k)
			if n += k; n >= 1024 {
				if !ev.work(span, n, elemsPerStep) {
					return false, true
				}
				n = 0
			}
			if eq {
				return true, true
			}
		}
		ev.work(span, n, elemsPerStep)
		return false, true
	}
	return false, false
}
