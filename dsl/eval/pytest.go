package eval

import (
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/source"
)

// pytest is modelled only as far as parametrization goes: pytest.param and
// pytest.mark.parametrize build values the driver enumerates; every other
// name (fixtures, raises, skip marks) is opaque.

type (
	// ParamSetV is pytest.param(*values, id=..., marks=...).
	ParamSetV struct {
		Base
		Values []Value
		ID     string // "" when not given
	}
	// ParametrizeV is the mark pytest.mark.parametrize(argnames, argvalues,
	// ids=...) builds: one axis of a test's grid.
	ParametrizeV struct {
		Base
		Names []string
		Rows  [][]Value // one value per name
		IDs   []string  // one id per row
	}
)

func (*ParamSetV) TypeName() string    { return "ParameterSet" }
func (*ParametrizeV) TypeName() string { return "MarkDecorator" }

// RaisedV is what pytest.skip, pytest.fail and pytest.xfail return: they
// raise (Skipped, Failed, XFailed), so an expression statement that calls
// one ends its block as a raise statement does, and the case stops there
// (test_tcgen05_ldst.py skips the widths its dtype cannot tile before it
// builds their layouts).
type RaisedV struct {
	Base
	Exc string
}

func (*RaisedV) TypeName() string { return "NoReturn" }

func pytestRaises(name string) Value {
	return Builtin("pytest."+name, func(ev *Evaluator, c *Call) Value {
		return &RaisedV{Base{c.At}, name}
	})
}

func pytestAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "skip", "fail", "xfail":
		return pytestRaises(name), true
	case "param":
		return Builtin("pytest.param", pytestParam), true
	case "mark":
		return &ModuleV{Base: Base{span}, Path: "pytest.mark", Name: "mark", Attr: pytestMarkAttr}, true
	}
	return nil, false
}

func pytestMarkAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	if name == "parametrize" {
		return Builtin("pytest.mark.parametrize", pytestParametrize), true
	}
	return nil, false
}

func pytestParam(ev *Evaluator, c *Call) Value {
	p := &ParamSetV{Base: Base{c.At}, Values: append([]Value(nil), c.Args...)}
	if v, ok := c.Kw("id"); ok {
		if s, ok := v.(*StrV); ok {
			p.ID = s.V
		}
	}
	return p
}

// pytestParametrize builds one grid axis. Values it cannot enumerate make
// an opaque mark (the test is then run once, its parameters unbound).
func pytestParametrize(ev *Evaluator, c *Call) Value {
	opaque := &OpaqueV{Base{c.At}, "pytest.mark.parametrize(...)"}
	names := c.Arg(0, "argnames")
	values := c.Arg(1, "argvalues")
	if names == nil || values == nil {
		return opaque
	}
	var argnames []string
	switch n := names.(type) {
	case *StrV:
		for _, s := range strings.Split(n.V, ",") {
			if s = strings.TrimSpace(s); s != "" {
				argnames = append(argnames, s)
			}
		}
	case *TupleV, *ListV:
		for _, e := range SeqElts(n) {
			s, ok := e.(*StrV)
			if !ok {
				return opaque
			}
			argnames = append(argnames, s.V)
		}
	default:
		return opaque
	}
	if len(argnames) == 0 || IsErr(values) {
		return opaque
	}
	elts, ok := ev.Iterate(values, c.ArgSpan(1, "argvalues"))
	if !ok {
		return opaque
	}
	idsArg, _ := c.Kw("ids")
	if idsArg == nil && len(c.Args) > 3 {
		idsArg = c.Args[3]
	}
	m := &ParametrizeV{Base: Base{c.At}, Names: argnames}
	for i, e := range elts {
		var row []Value
		id := ""
		if p, ok := e.(*ParamSetV); ok {
			row, id = p.Values, p.ID
		} else if len(argnames) == 1 {
			row = []Value{e}
		} else {
			r, ok := ev.Iterate(e, c.ArgSpan(1, "argvalues"))
			if !ok {
				return opaque
			}
			row = r
		}
		if len(row) != len(argnames) {
			return opaque
		}
		if id == "" {
			id = ev.pytestID(idsArg, i, argnames, row, c)
		}
		m.Rows = append(m.Rows, row)
		m.IDs = append(m.IDs, id)
	}
	return m
}

// pytestID is the id pytest gives row i: ids[i] from a list, ids(value)
// joined by "-" from a callable, else each value's default id.
func (ev *Evaluator) pytestID(ids Value, i int, names []string, row []Value, c *Call) string {
	switch x := ids.(type) {
	case *ListV, *TupleV:
		if es := SeqElts(x); i < len(es) {
			if s, ok := es[i].(*StrV); ok {
				return s.V
			}
		}
	case *FuncV, *BuiltinV:
		parts := make([]string, len(row))
		for j, v := range row {
			r := ev.CallValue(x, &Call{At: c.At, FnSpan: c.At, Args: []Value{v}, ArgSpans: []source.Span{c.At}, Fr: c.Fr})
			if s, ok := r.(*StrV); ok {
				parts[j] = s.V
			} else {
				parts[j] = defaultID(v, names[j], i)
			}
		}
		return strings.Join(parts, "-")
	}
	parts := make([]string, len(row))
	for j, v := range row {
		parts[j] = defaultID(v, names[j], i)
	}
	return strings.Join(parts, "-")
}

// defaultID is pytest's _idval: numbers, strings, booleans and None as
// text, other objects as argname plus the row index.
func defaultID(v Value, name string, i int) string {
	switch x := v.(type) {
	case *StrV:
		return x.V
	case *IntV:
		return strconv.FormatInt(x.V, 10)
	case *FloatV:
		return pyFloat(x.V)
	case *BoolV, *NoneV:
		return Repr(v)
	case *EnumV:
		return x.Type + "." + x.Name
	case *FuncV:
		n := x.Name
		if k := strings.LastIndexByte(n, '.'); k >= 0 {
			n = n[k+1:]
		}
		return n
	}
	return name + strconv.Itoa(i)
}

// gridCase is one case of a test function's grid.
type gridCase struct {
	kwargs []Binding
	id     string
}

// gridCases expands the parametrize axes of a test (decorators top to
// bottom) into their product, in pytest's order: the bottom decorator's
// values vary slowest and come first in the id. total is the product's
// size; only cases whose index is in pick (nil: all) are built.
func gridCases(axes []*ParametrizeV, pick func(total int) []int) ([]gridCase, int) {
	total := 1
	for _, a := range axes {
		total *= len(a.Rows)
		if total > 1<<30 {
			total = 1 << 30
		}
	}
	if total == 0 {
		return nil, 0
	}
	idx := pick(total)
	out := make([]gridCase, 0, len(idx))
	for _, n := range idx {
		var c gridCase
		var ids []string
		// Index n in mixed radix, the top decorator fastest.
		digits := make([]int, len(axes))
		for j := 0; j < len(axes); j++ {
			r := len(axes[j].Rows)
			digits[j] = n % r
			n /= r
		}
		for j := len(axes) - 1; j >= 0; j-- {
			a, d := axes[j], digits[j]
			for k, name := range a.Names {
				c.kwargs = append(c.kwargs, Binding{name, a.Rows[d][k]})
			}
			ids = append(ids, a.IDs[d])
		}
		c.id = strings.Join(ids, "-")
		out = append(out, c)
	}
	return out, total
}

// spread picks at most limit indices out of total, evenly spread (all of
// them when total <= limit).
func spread(total, limit int) []int {
	n := min(total, limit)
	out := make([]int, n)
	for i := range out {
		if total <= limit {
			out[i] = i
		} else {
			out[i] = int(int64(i) * int64(total) / int64(n))
		}
	}
	return out
}

// gridDecorators returns a def's parametrize marks from its evaluated
// decorators, top to bottom. A parametrize mark whose values could not be
// enumerated is opaque and left out: the test then runs once with those
// parameters unbound.
func gridDecorators(decos []Value) []*ParametrizeV {
	var out []*ParametrizeV
	for _, d := range decos {
		if x, ok := d.(*ParametrizeV); ok {
			out = append(out, x)
		}
	}
	return out
}
