package syntax

import (
	"strconv"
	"strings"
)

// Dump renders a tree as a compact S-expression, for tests and debugging.
// Names print bare, numbers as written, strings Go-quoted; a missing
// optional child prints as "_". A *File prints its statements separated by
// spaces. The format is not stable API.
func Dump(n Node) string {
	var d dumper
	d.node(n)
	return d.String()
}

type dumper struct{ strings.Builder }

func (d *dumper) open(tag string) {
	d.WriteByte('(')
	d.WriteString(tag)
}

func (d *dumper) close() { d.WriteByte(')') }

func (d *dumper) sp() { d.WriteByte(' ') }

// kids writes " x" for each node.
func (d *dumper) exprs(xs []Expr) {
	for _, x := range xs {
		d.sp()
		d.node(x)
	}
}

func (d *dumper) stmts(ss []Stmt) {
	for _, s := range ss {
		d.sp()
		d.node(s)
	}
}

func (d *dumper) opt(x Expr) {
	d.sp()
	if x == nil {
		d.WriteByte('_')
		return
	}
	d.node(x)
}

func (d *dumper) list(tag string, xs []Expr) {
	d.open(tag)
	d.exprs(xs)
	d.close()
}

func (d *dumper) node(n Node) {
	switch n := n.(type) {
	case nil:
		d.WriteByte('_')
	case *File:
		for i, s := range n.Body {
			if i > 0 {
				d.sp()
			}
			d.node(s)
		}

	case *Name:
		d.WriteString(n.Id)
	case *Constant:
		switch n.Kind {
		case String:
			d.WriteString(strconv.Quote(n.Str))
		case Bytes:
			d.WriteByte('b')
			d.WriteString(strconv.Quote(n.Str))
		default:
			d.WriteString(n.Value)
		}
	case *JoinedStr:
		d.list("fstr", n.Parts)
	case *FormattedValue:
		d.open("fmt ")
		d.node(n.Value)
		if n.Conversion != 0 {
			d.WriteString(" !")
			d.WriteByte(n.Conversion)
		}
		if n.FormatSpec != nil {
			d.sp()
			d.node(n.FormatSpec)
		}
		d.close()
	case *BinOp:
		d.open(n.Op)
		d.sp()
		d.node(n.X)
		d.sp()
		d.node(n.Y)
		d.close()
	case *UnaryOp:
		d.open(n.Op)
		d.sp()
		d.node(n.X)
		d.close()
	case *BoolOp:
		d.list(n.Op, n.Values)
	case *Compare:
		d.open("cmp ")
		d.node(n.Left)
		for i, op := range n.Ops {
			d.sp()
			d.WriteString(op)
			d.sp()
			d.node(n.Comparators[i])
		}
		d.close()
	case *Call:
		d.open("call ")
		d.node(n.Func)
		d.exprs(n.Args)
		for _, k := range n.Keywords {
			d.sp()
			d.node(k)
		}
		d.close()
	case *Attribute:
		d.open(". ")
		d.node(n.X)
		d.sp()
		d.node(n.Attr)
		d.close()
	case *Subscript:
		d.open("sub ")
		d.node(n.X)
		d.sp()
		d.node(n.Index)
		d.close()
	case *Slice:
		d.open("slice")
		d.opt(n.Lower)
		d.opt(n.Upper)
		d.opt(n.Step)
		d.close()
	case *Tuple:
		d.list("tuple", n.Elts)
	case *List:
		d.list("list", n.Elts)
	case *Set:
		d.list("set", n.Elts)
	case *Dict:
		d.open("dict")
		for i, k := range n.Keys {
			d.WriteString(" (")
			if k == nil {
				d.WriteString("**")
			} else {
				d.node(k)
			}
			d.sp()
			d.node(n.Values[i])
			d.close()
		}
		d.close()
	case *ListComp:
		d.comp("listcomp", n.Elt, nil, n.Generators)
	case *SetComp:
		d.comp("setcomp", n.Elt, nil, n.Generators)
	case *GeneratorExp:
		d.comp("genexp", n.Elt, nil, n.Generators)
	case *DictComp:
		d.comp("dictcomp", n.Key, n.Value, n.Generators)
	case *Lambda:
		d.open("lambda ")
		d.node(n.Params)
		d.sp()
		d.node(n.Body)
		d.close()
	case *IfExp:
		d.open("ifexp ")
		d.node(n.Test)
		d.sp()
		d.node(n.Body)
		d.sp()
		d.node(n.OrElse)
		d.close()
	case *Starred:
		d.open("* ")
		d.node(n.X)
		d.close()
	case *NamedExpr:
		d.open(":= ")
		d.node(n.Target)
		d.sp()
		d.node(n.Value)
		d.close()
	case *Await:
		d.open("await ")
		d.node(n.X)
		d.close()
	case *Yield:
		d.open("yield")
		if n.Value != nil {
			d.sp()
			d.node(n.Value)
		}
		d.close()
	case *YieldFrom:
		d.open("yield-from ")
		d.node(n.Value)
		d.close()
	case *BadExpr:
		d.WriteString("(bad)")

	case *Keyword:
		if n.Name == nil {
			d.open("** ")
		} else {
			d.open("kw ")
			d.node(n.Name)
			d.sp()
		}
		d.node(n.Value)
		d.close()
	case *Comprehension:
		if n.IsAsync {
			d.open("async-for ")
		} else {
			d.open("for ")
		}
		d.node(n.Target)
		d.sp()
		d.node(n.Iter)
		for _, c := range n.Ifs {
			d.WriteString(" (if ")
			d.node(c)
			d.close()
		}
		d.close()
	case *Params:
		d.open("params")
		for _, x := range n.Posonly {
			d.sp()
			d.node(x)
		}
		if len(n.Posonly) > 0 {
			d.WriteString(" /")
		}
		for _, x := range n.Args {
			d.sp()
			d.node(x)
		}
		if n.Vararg != nil {
			d.WriteString(" *")
			d.node(n.Vararg)
		} else if len(n.Kwonly) > 0 {
			d.WriteString(" *")
		}
		for _, x := range n.Kwonly {
			d.sp()
			d.node(x)
		}
		if n.Kwarg != nil {
			d.WriteString(" **")
			d.node(n.Kwarg)
		}
		d.close()
	case *Param:
		if n.Annotation == nil && n.Default == nil {
			d.node(n.Name)
			return
		}
		d.open("")
		d.node(n.Name)
		if n.Annotation != nil {
			d.WriteString(" : ")
			d.node(n.Annotation)
		}
		if n.Default != nil {
			d.WriteString(" = ")
			d.node(n.Default)
		}
		d.close()
	case *TypeParam:
		prefix := map[TypeParamKind]string{TypeVar: "", TypeVarTuple: "*", ParamSpec: "**"}[n.Kind]
		if n.Bound == nil && n.Default == nil {
			d.WriteString(prefix)
			d.node(n.Name)
			return
		}
		d.open(prefix)
		d.node(n.Name)
		if n.Bound != nil {
			d.WriteString(" : ")
			d.node(n.Bound)
		}
		if n.Default != nil {
			d.WriteString(" = ")
			d.node(n.Default)
		}
		d.close()
	case *WithItem:
		if n.Vars == nil {
			d.node(n.Context)
			return
		}
		d.open("as ")
		d.node(n.Context)
		d.sp()
		d.node(n.Vars)
		d.close()
	case *ExceptHandler:
		d.open("except")
		d.opt(n.Type)
		if n.Name != nil {
			d.WriteString(" as ")
			d.node(n.Name)
		}
		d.stmts(n.Body)
		d.close()
	case *Alias:
		if n.AsName == nil {
			d.WriteString(n.Name)
			return
		}
		d.open("as ")
		d.WriteString(n.Name)
		d.sp()
		d.node(n.AsName)
		d.close()
	case *MatchCase:
		d.open("case ")
		d.node(n.Pattern)
		if n.Guard != nil {
			d.WriteString(" (if ")
			d.node(n.Guard)
			d.close()
		}
		d.stmts(n.Body)
		d.close()

	case *ExprStmt:
		d.open("expr ")
		d.node(n.X)
		d.close()
	case *Assign:
		d.open("=")
		d.exprs(n.Targets)
		d.sp()
		d.node(n.Value)
		d.close()
	case *AugAssign:
		d.open(n.Op + "= ")
		d.node(n.Target)
		d.sp()
		d.node(n.Value)
		d.close()
	case *AnnAssign:
		d.open("ann ")
		d.node(n.Target)
		d.sp()
		d.node(n.Annotation)
		if n.Value != nil {
			d.sp()
			d.node(n.Value)
		}
		d.close()
	case *FunctionDef:
		if n.IsAsync {
			d.open("async-def ")
		} else {
			d.open("def ")
		}
		d.node(n.Name)
		d.decorators(n.Decorators)
		d.typeParams(n.TypeParams)
		d.sp()
		d.node(n.Params)
		if n.Returns != nil {
			d.WriteString(" (-> ")
			d.node(n.Returns)
			d.close()
		}
		d.stmts(n.Body)
		d.close()
	case *ClassDef:
		d.open("class ")
		d.node(n.Name)
		d.decorators(n.Decorators)
		d.typeParams(n.TypeParams)
		if len(n.Bases) > 0 || len(n.Keywords) > 0 {
			d.WriteString(" (bases")
			d.exprs(n.Bases)
			for _, k := range n.Keywords {
				d.sp()
				d.node(k)
			}
			d.close()
		}
		d.stmts(n.Body)
		d.close()
	case *Return:
		d.open("return")
		if n.Value != nil {
			d.sp()
			d.node(n.Value)
		}
		d.close()
	case *Delete:
		d.list("del", n.Targets)
	case *If:
		if n.IsElif {
			d.open("elif ")
		} else {
			d.open("if ")
		}
		d.node(n.Test)
		d.stmts(n.Body)
		d.orElse(n.Else)
		d.close()
	case *For:
		if n.IsAsync {
			d.open("async-for ")
		} else {
			d.open("for ")
		}
		d.node(n.Target)
		d.sp()
		d.node(n.Iter)
		d.stmts(n.Body)
		d.orElse(n.Else)
		d.close()
	case *While:
		d.open("while ")
		d.node(n.Test)
		d.stmts(n.Body)
		d.orElse(n.Else)
		d.close()
	case *With:
		if n.IsAsync {
			d.open("async-with (")
		} else {
			d.open("with (")
		}
		for i, it := range n.Items {
			if i > 0 {
				d.sp()
			}
			d.node(it)
		}
		d.close()
		d.stmts(n.Body)
		d.close()
	case *Try:
		if n.Star {
			d.open("try*")
		} else {
			d.open("try")
		}
		d.stmts(n.Body)
		for _, h := range n.Handlers {
			d.sp()
			d.node(h)
		}
		d.orElse(n.Else)
		if n.Finally != nil {
			d.WriteString(" (finally")
			d.stmts(n.Finally)
			d.close()
		}
		d.close()
	case *Raise:
		d.open("raise")
		if n.Exc != nil {
			d.sp()
			d.node(n.Exc)
		}
		if n.Cause != nil {
			d.WriteString(" (from ")
			d.node(n.Cause)
			d.close()
		}
		d.close()
	case *Assert:
		d.open("assert ")
		d.node(n.Test)
		if n.Msg != nil {
			d.sp()
			d.node(n.Msg)
		}
		d.close()
	case *Import:
		d.open("import")
		for _, a := range n.Names {
			d.sp()
			d.node(a)
		}
		d.close()
	case *ImportFrom:
		d.open("from ")
		d.WriteString(strings.Repeat(".", n.Level))
		d.WriteString(n.Module)
		for _, a := range n.Names {
			d.sp()
			d.node(a)
		}
		d.close()
	case *Global:
		d.open("global")
		for _, x := range n.Names {
			d.sp()
			d.node(x)
		}
		d.close()
	case *Nonlocal:
		d.open("nonlocal")
		for _, x := range n.Names {
			d.sp()
			d.node(x)
		}
		d.close()
	case *Pass:
		d.WriteString("(pass)")
	case *Break:
		d.WriteString("(break)")
	case *Continue:
		d.WriteString("(continue)")
	case *Match:
		d.open("match ")
		d.node(n.Subject)
		for _, c := range n.Cases {
			d.sp()
			d.node(c)
		}
		d.close()
	case *TypeAlias:
		d.open("type ")
		d.node(n.Name)
		d.typeParams(n.TypeParams)
		d.sp()
		d.node(n.Value)
		d.close()
	case *BadStmt:
		d.WriteString("(bad-stmt)")

	case *MatchValue:
		d.open("value ")
		d.node(n.Value)
		d.close()
	case *MatchSingleton:
		d.node(n.Value)
	case *MatchSequence:
		d.open("seq")
		d.patterns(n.Patterns)
		d.close()
	case *MatchMapping:
		d.open("map")
		for i, k := range n.Keys {
			d.WriteString(" (")
			d.node(k)
			d.sp()
			d.node(n.Patterns[i])
			d.close()
		}
		if n.Rest != nil {
			d.WriteString(" **")
			d.node(n.Rest)
		}
		d.close()
	case *MatchClass:
		d.open("class ")
		d.node(n.Cls)
		d.patterns(n.Patterns)
		for i, a := range n.KwdAttrs {
			d.WriteString(" (kw ")
			d.node(a)
			d.sp()
			d.node(n.KwdPatterns[i])
			d.close()
		}
		d.close()
	case *MatchStar:
		d.WriteByte('*')
		if n.Name == nil {
			d.WriteByte('_')
		} else {
			d.node(n.Name)
		}
	case *MatchAs:
		switch {
		case n.Pattern == nil && n.Name == nil:
			d.WriteByte('_')
		case n.Pattern == nil:
			d.open("capture ")
			d.node(n.Name)
			d.close()
		default:
			d.open("as ")
			d.node(n.Pattern)
			d.sp()
			d.node(n.Name)
			d.close()
		}
	case *MatchOr:
		d.open("or")
		d.patterns(n.Patterns)
		d.close()
	default:
		d.WriteString("(?)")
	}
}

func (d *dumper) comp(tag string, elt, value Expr, gens []*Comprehension) {
	d.open(tag)
	d.sp()
	d.node(elt)
	if value != nil {
		d.sp()
		d.node(value)
	}
	for _, g := range gens {
		d.sp()
		d.node(g)
	}
	d.close()
}

func (d *dumper) orElse(ss []Stmt) {
	if ss == nil {
		return
	}
	if len(ss) == 1 {
		if s, ok := ss[0].(*If); ok && s.IsElif {
			d.sp()
			d.node(s)
			return
		}
	}
	d.WriteString(" (else")
	d.stmts(ss)
	d.close()
}

func (d *dumper) decorators(xs []Expr) {
	if len(xs) > 0 {
		d.WriteString(" (@")
		d.exprs(xs)
		d.close()
	}
}

func (d *dumper) typeParams(tps []*TypeParam) {
	if len(tps) == 0 {
		return
	}
	d.WriteString(" [")
	for i, tp := range tps {
		if i > 0 {
			d.sp()
		}
		d.node(tp)
	}
	d.WriteByte(']')
}

func (d *dumper) patterns(ps []Pattern) {
	for _, p := range ps {
		d.sp()
		d.node(p)
	}
}
