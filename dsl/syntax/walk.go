package syntax

// A Visitor's Visit method is called for each node found by Walk. If the
// result w is not nil, Walk visits each child of node with w, then calls
// w.Visit(nil).
type Visitor interface {
	Visit(node Node) (w Visitor)
}

// Walk traverses a tree depth-first: it calls v.Visit(node), then walks the
// children of node with the returned visitor. Children come in source order,
// except that a call's (or class's) positional arguments all come before its
// keywords. Nil children are skipped; comments are not visited.
func Walk(v Visitor, node Node) {
	if v = v.Visit(node); v == nil {
		return
	}
	switch n := node.(type) {
	case *File:
		walkStmts(v, n.Body)

	// Expressions.
	case *Name, *Constant, *BadExpr:
	case *JoinedStr:
		walkExprs(v, n.Parts)
	case *FormattedValue:
		Walk(v, n.Value)
		if n.FormatSpec != nil {
			Walk(v, n.FormatSpec)
		}
	case *BinOp:
		Walk(v, n.X)
		Walk(v, n.Y)
	case *UnaryOp:
		Walk(v, n.X)
	case *BoolOp:
		walkExprs(v, n.Values)
	case *Compare:
		Walk(v, n.Left)
		walkExprs(v, n.Comparators)
	case *Call:
		Walk(v, n.Func)
		walkExprs(v, n.Args)
		for _, k := range n.Keywords {
			Walk(v, k)
		}
	case *Attribute:
		Walk(v, n.X)
		Walk(v, n.Attr)
	case *Subscript:
		Walk(v, n.X)
		Walk(v, n.Index)
	case *Slice:
		walkOpt(v, n.Lower)
		walkOpt(v, n.Upper)
		walkOpt(v, n.Step)
	case *Tuple:
		walkExprs(v, n.Elts)
	case *List:
		walkExprs(v, n.Elts)
	case *Set:
		walkExprs(v, n.Elts)
	case *Dict:
		for i, k := range n.Keys {
			walkOpt(v, k)
			Walk(v, n.Values[i])
		}
	case *ListComp:
		Walk(v, n.Elt)
		walkComps(v, n.Generators)
	case *SetComp:
		Walk(v, n.Elt)
		walkComps(v, n.Generators)
	case *GeneratorExp:
		Walk(v, n.Elt)
		walkComps(v, n.Generators)
	case *DictComp:
		Walk(v, n.Key)
		Walk(v, n.Value)
		walkComps(v, n.Generators)
	case *Lambda:
		Walk(v, n.Params)
		Walk(v, n.Body)
	case *IfExp:
		Walk(v, n.Body)
		Walk(v, n.Test)
		Walk(v, n.OrElse)
	case *Starred:
		Walk(v, n.X)
	case *NamedExpr:
		Walk(v, n.Target)
		Walk(v, n.Value)
	case *Await:
		Walk(v, n.X)
	case *Yield:
		walkOpt(v, n.Value)
	case *YieldFrom:
		Walk(v, n.Value)

	// Auxiliary nodes.
	case *Keyword:
		if n.Name != nil {
			Walk(v, n.Name)
		}
		Walk(v, n.Value)
	case *Comprehension:
		Walk(v, n.Target)
		Walk(v, n.Iter)
		walkExprs(v, n.Ifs)
	case *Params:
		walkParams(v, n)
	case *Param:
		Walk(v, n.Name)
		walkOpt(v, n.Annotation)
		walkOpt(v, n.Default)
	case *TypeParam:
		Walk(v, n.Name)
		walkOpt(v, n.Bound)
		walkOpt(v, n.Default)
	case *WithItem:
		Walk(v, n.Context)
		walkOpt(v, n.Vars)
	case *ExceptHandler:
		walkOpt(v, n.Type)
		if n.Name != nil {
			Walk(v, n.Name)
		}
		walkStmts(v, n.Body)
	case *Alias:
		if n.AsName != nil {
			Walk(v, n.AsName)
		}
	case *MatchCase:
		Walk(v, n.Pattern)
		walkOpt(v, n.Guard)
		walkStmts(v, n.Body)

	// Statements.
	case *Pass, *Break, *Continue, *BadStmt:
	case *ExprStmt:
		Walk(v, n.X)
	case *Assign:
		walkExprs(v, n.Targets)
		Walk(v, n.Value)
	case *AugAssign:
		Walk(v, n.Target)
		Walk(v, n.Value)
	case *AnnAssign:
		Walk(v, n.Target)
		Walk(v, n.Annotation)
		walkOpt(v, n.Value)
	case *FunctionDef:
		walkExprs(v, n.Decorators)
		Walk(v, n.Name)
		for _, tp := range n.TypeParams {
			Walk(v, tp)
		}
		Walk(v, n.Params)
		walkOpt(v, n.Returns)
		walkStmts(v, n.Body)
	case *ClassDef:
		walkExprs(v, n.Decorators)
		Walk(v, n.Name)
		for _, tp := range n.TypeParams {
			Walk(v, tp)
		}
		walkExprs(v, n.Bases)
		for _, k := range n.Keywords {
			Walk(v, k)
		}
		walkStmts(v, n.Body)
	case *Return:
		walkOpt(v, n.Value)
	case *Delete:
		walkExprs(v, n.Targets)
	case *If:
		Walk(v, n.Test)
		walkStmts(v, n.Body)
		walkStmts(v, n.Else)
	case *For:
		Walk(v, n.Target)
		Walk(v, n.Iter)
		walkStmts(v, n.Body)
		walkStmts(v, n.Else)
	case *While:
		Walk(v, n.Test)
		walkStmts(v, n.Body)
		walkStmts(v, n.Else)
	case *With:
		for _, it := range n.Items {
			Walk(v, it)
		}
		walkStmts(v, n.Body)
	case *Try:
		walkStmts(v, n.Body)
		for _, h := range n.Handlers {
			Walk(v, h)
		}
		walkStmts(v, n.Else)
		walkStmts(v, n.Finally)
	case *Raise:
		walkOpt(v, n.Exc)
		walkOpt(v, n.Cause)
	case *Assert:
		Walk(v, n.Test)
		walkOpt(v, n.Msg)
	case *Import:
		for _, a := range n.Names {
			Walk(v, a)
		}
	case *ImportFrom:
		for _, a := range n.Names {
			Walk(v, a)
		}
	case *Global:
		for _, x := range n.Names {
			Walk(v, x)
		}
	case *Nonlocal:
		for _, x := range n.Names {
			Walk(v, x)
		}
	case *Match:
		Walk(v, n.Subject)
		for _, c := range n.Cases {
			Walk(v, c)
		}
	case *TypeAlias:
		Walk(v, n.Name)
		for _, tp := range n.TypeParams {
			Walk(v, tp)
		}
		Walk(v, n.Value)

	// Patterns.
	case *MatchValue:
		Walk(v, n.Value)
	case *MatchSingleton:
		Walk(v, n.Value)
	case *MatchSequence:
		walkPatterns(v, n.Patterns)
	case *MatchMapping:
		for i, k := range n.Keys {
			Walk(v, k)
			Walk(v, n.Patterns[i])
		}
		if n.Rest != nil {
			Walk(v, n.Rest)
		}
	case *MatchClass:
		Walk(v, n.Cls)
		walkPatterns(v, n.Patterns)
		for i, a := range n.KwdAttrs {
			Walk(v, a)
			Walk(v, n.KwdPatterns[i])
		}
	case *MatchStar:
		if n.Name != nil {
			Walk(v, n.Name)
		}
	case *MatchAs:
		if n.Pattern != nil {
			Walk(v, n.Pattern)
		}
		if n.Name != nil {
			Walk(v, n.Name)
		}
	case *MatchOr:
		walkPatterns(v, n.Patterns)
	}
	v.Visit(nil)
}

func walkOpt(v Visitor, x Expr) {
	if x != nil {
		Walk(v, x)
	}
}

func walkExprs(v Visitor, xs []Expr) {
	for _, x := range xs {
		Walk(v, x)
	}
}

func walkStmts(v Visitor, ss []Stmt) {
	for _, s := range ss {
		Walk(v, s)
	}
}

func walkPatterns(v Visitor, ps []Pattern) {
	for _, p := range ps {
		Walk(v, p)
	}
}

func walkComps(v Visitor, cs []*Comprehension) {
	for _, c := range cs {
		Walk(v, c)
	}
}

// walkParams visits parameters in source order.
func walkParams(v Visitor, p *Params) {
	for _, x := range p.Posonly {
		Walk(v, x)
	}
	for _, x := range p.Args {
		Walk(v, x)
	}
	if p.Vararg != nil {
		Walk(v, p.Vararg)
	}
	for _, x := range p.Kwonly {
		Walk(v, x)
	}
	if p.Kwarg != nil {
		Walk(v, p.Kwarg)
	}
}

type inspector func(Node) bool

func (f inspector) Visit(node Node) Visitor {
	if f(node) {
		return f
	}
	return nil
}

// Inspect traverses a tree in Walk's order: it calls f(node);
// if f returns true, Inspect visits the children of node, then calls f(nil).
func Inspect(node Node, f func(Node) bool) {
	Walk(inspector(f), node)
}
