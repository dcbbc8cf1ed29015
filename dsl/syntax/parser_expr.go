package syntax

import "github.com/tilels/tilels/dsl/source"

// binPrec is the precedence of the binary operators from bitwise_or (1) to
// term (6); 0 means not a binary operator. ** is handled by power.
var binPrec = [numTokKinds]int8{
	tPipe: 1, tCaret: 2, tAmp: 3, tShl: 4, tShr: 4, tPlus: 5, tMinus: 5,
	tStar: 6, tSlash: 6, tDSlash: 6, tPercent: 6, tAt: 6,
}

// canStartExpr reports whether a token of kind k can start an expression.
func canStartExpr(k tokKind) bool {
	switch k {
	case tName, tInt, tFloat, tImag, tString, tFStart, tLParen, tLBrack, tLBrace,
		tMinus, tPlus, tTilde, tEllipsis, kNot, kLambda, kAwait, kNone, kTrue, kFalse, tStar:
		return true
	}
	return false
}

// expr parses an expression: a conditional expression or a lambda.
func (p *parser) expr() Expr {
	if p.tok.kind == kLambda {
		return p.lambda()
	}
	start := p.tok.pos
	x := p.disjunction()
	if p.tok.kind != kIf {
		return x
	}
	// A comprehension's "if" follows its iterable, never an expression
	// parsed by expr, so "if" here starts a conditional expression.
	p.next()
	test := p.disjunction()
	var orElse Expr
	if p.tok.kind == kElse {
		p.next()
		if p.enter() {
			orElse = p.expr()
		} else {
			orElse = p.badExpr("")
		}
		p.leave()
	} else {
		p.errorExpected("'else' after 'if' expression")
		orElse = p.badExpr("")
	}
	return &IfExp{Loc: p.span(start), Test: test, Body: x, OrElse: orElse}
}

// namedExpr parses NAME := expr, or an expression.
func (p *parser) namedExpr() Expr {
	if p.tok.kind == tName && p.peek(1) == tWalrus {
		start := p.tok.pos
		target := p.name()
		p.next()
		value := p.expr()
		return &NamedExpr{Loc: p.span(start), Target: target, Value: value}
	}
	x := p.expr()
	if p.tok.kind == tWalrus {
		p.errorAt(x.Span(), CodeInvalidTarget, "cannot use assignment expression with %s", describeExpr(x))
	}
	return x
}

// starExpr parses '*' bitwise_or, or an expression (star_expression).
func (p *parser) starExpr() Expr {
	if p.tok.kind == tStar {
		return p.starred()
	}
	return p.expr()
}

// starNamedExpr parses '*' bitwise_or, or a named expression.
func (p *parser) starNamedExpr() Expr {
	if p.tok.kind == tStar {
		return p.starred()
	}
	return p.namedExpr()
}

// starTarget parses '*' bitwise_or or bitwise_or: an element of a for target.
func (p *parser) starTarget() Expr {
	if p.tok.kind == tStar {
		return p.starred()
	}
	return p.bitOr()
}

func (p *parser) starred() Expr {
	start := p.tok.pos
	p.next()
	x := p.bitOr()
	return &Starred{Loc: p.span(start), X: x}
}

// exprList parses elem (',' elem)* [','] and returns a single element, or a
// Tuple when there is a comma. It stops before a token that cannot start an
// expression.
func (p *parser) exprList(elem func() Expr) Expr {
	start := p.tok.pos
	x := elem()
	if p.tok.kind != tComma {
		return x
	}
	mark := len(p.exprs)
	p.pushExpr(x)
	for p.tok.kind == tComma && !p.stmtErr {
		p.next()
		if !canStartExpr(p.tok.kind) {
			break
		}
		p.pushExpr(elem())
	}
	t := p.nodes.tuples.new()
	t.Elts = p.popExprs(mark)
	t.Loc = p.span(start)
	return t
}

// starExprs parses star_expressions: a tuple without parentheses or one expression.
func (p *parser) starExprs() Expr { return p.exprList(p.starExpr) }

func (p *parser) disjunction() Expr {
	start := p.tok.pos
	x := p.conjunction()
	if p.tok.kind != kOr {
		return x
	}
	mark := len(p.exprs)
	p.pushExpr(x)
	for p.got(kOr) {
		p.pushExpr(p.conjunction())
	}
	return &BoolOp{Loc: p.span(start), Op: "or", Values: p.popExprs(mark)}
}

func (p *parser) conjunction() Expr {
	start := p.tok.pos
	x := p.inversion()
	if p.tok.kind != kAnd {
		return x
	}
	mark := len(p.exprs)
	p.pushExpr(x)
	for p.got(kAnd) {
		p.pushExpr(p.inversion())
	}
	return &BoolOp{Loc: p.span(start), Op: "and", Values: p.popExprs(mark)}
}

func (p *parser) inversion() Expr {
	if p.tok.kind != kNot {
		return p.comparison()
	}
	start := p.tok.pos
	p.next()
	if !p.enter() {
		return p.badExpr("")
	}
	x := p.inversion()
	p.leave()
	return &UnaryOp{Loc: p.span(start), Op: "not", X: x}
}

// compareOp returns the comparison operator at the current token, and the
// number of tokens it takes ("not in" and "is not" take two).
func (p *parser) compareOp() (string, int) {
	switch p.tok.kind {
	case tEq:
		return "==", 1
	case tNe:
		return "!=", 1
	case tLt:
		return "<", 1
	case tLe:
		return "<=", 1
	case tGt:
		return ">", 1
	case tGe:
		return ">=", 1
	case kIn:
		return "in", 1
	case kIs:
		if p.peek(1) == kNot {
			return "is not", 2
		}
		return "is", 1
	case kNot:
		if p.peek(1) == kIn {
			return "not in", 2
		}
	}
	return "", 0
}

func (p *parser) comparison() Expr {
	start := p.tok.pos
	x := p.bitOr()
	op, n := p.compareOp()
	if n == 0 {
		return x
	}
	c := p.nodes.compares.new()
	c.Left = x
	mark := len(p.exprs)
	for n > 0 && !p.stmtErr {
		for ; n > 0; n-- {
			p.next()
		}
		c.Ops = append(c.Ops, op)
		p.pushExpr(p.bitOr())
		op, n = p.compareOp()
	}
	c.Comparators = p.popExprs(mark)
	c.Loc = p.span(start)
	return c
}

func (p *parser) bitOr() Expr { return p.binary(1) }

// binary parses binary operators of precedence >= minPrec by precedence
// climbing; all of them are left-associative.
func (p *parser) binary(minPrec int8) Expr {
	start := p.tok.pos
	x := p.unary()
	for {
		prec := binPrec[p.tok.kind]
		if prec < minPrec || prec == 0 {
			return x
		}
		op := binOpStr[p.tok.kind-tPlus]
		p.next()
		if !p.enter() {
			return x
		}
		y := p.binary(prec + 1)
		p.leave()
		b := p.nodes.binops.new()
		b.Loc, b.X, b.Op, b.Y = p.span(start), x, op, y
		x = b
	}
}

// unary parses factor: ('+' | '-' | '~') factor | power.
func (p *parser) unary() Expr {
	var op string
	switch p.tok.kind {
	case tMinus:
		op = "-"
	case tPlus:
		op = "+"
	case tTilde:
		op = "~"
	default:
		return p.power()
	}
	start := p.tok.pos
	p.next()
	if !p.enter() {
		return p.badExpr("")
	}
	x := p.unary()
	p.leave()
	return &UnaryOp{Loc: p.span(start), Op: op, X: x}
}

// power parses await_primary ['**' factor].
func (p *parser) power() Expr {
	start := p.tok.pos
	var x Expr
	if p.tok.kind == kAwait {
		p.next()
		if !p.enter() {
			return p.badExpr("")
		}
		y := p.primary()
		p.leave()
		x = &Await{Loc: p.span(start), X: y}
	} else {
		x = p.primary()
	}
	if p.tok.kind != tDStar {
		return x
	}
	p.next()
	if !p.enter() {
		return x
	}
	y := p.unary()
	p.leave()
	b := p.nodes.binops.new()
	b.Loc, b.X, b.Op, b.Y = p.span(start), x, "**", y
	return b
}

// primary parses an atom followed by calls, subscripts and attributes.
func (p *parser) primary() Expr {
	// Every nested expression goes through here: bound the recursion.
	if !p.enter() {
		p.leave()
		return p.badExpr("")
	}
	x := p.trailers()
	p.leave()
	return x
}

// trailers parses an atom and its trailers, for primary.
func (p *parser) trailers() Expr {
	start := p.tok.pos
	x := p.atom()
	for !p.stmtErr {
		switch p.tok.kind {
		case tDot:
			p.next()
			if p.tok.kind != tName {
				p.expectName("after '.'")
				return x
			}
			a := p.nodes.attrs.new()
			a.X = x
			a.Attr = p.name()
			a.Loc = p.span(start)
			x = a
		case tLParen:
			x = p.call(start, x)
		case tLBrack:
			open := p.i
			p.next()
			index := p.subscriptIndex()
			p.closeBracket(open, tRBrack, "subscript")
			s := p.nodes.subs.new()
			s.Loc, s.X, s.Index = p.span(start), x, index
			x = s
		default:
			return x
		}
	}
	return x
}

// closeBracket expects the closing bracket k matching the opening bracket
// at token index open.
func (p *parser) closeBracket(open int, k tokKind, what string) {
	if p.tok.kind == k {
		p.next()
		return
	}
	if p.toks[open].flags&tfErr != 0 || p.tok.kind == tNewline && p.tok.flags&tfErr != 0 {
		p.stmtErr = true // the lexer reported the unclosed bracket
		return
	}
	if canStartExpr(p.tok.kind) && p.tok.kind != tStar {
		p.errorExpected("',' or '" + k.String() + "' in " + what)
		return
	}
	p.errorExpected("'" + k.String() + "' to close " + what)
}

// call parses the argument list of a call of fn, which started at start.
func (p *parser) call(start source.Pos, fn Expr) Expr {
	c := p.nodes.calls.new()
	c.Func = fn
	c.Args, c.Keywords = p.arguments()
	c.Loc = p.span(start)
	return c
}

// arguments parses "(" args ")" of a call or class definition.
func (p *parser) arguments() ([]Expr, []*Keyword) {
	lparen, open := p.tok.pos, p.i
	p.next() // (
	kwMark := len(p.kws)
	var bareGen *GeneratorExp
	mark := len(p.exprs)
	for p.tok.kind != tRParen && !p.stmtErr {
		argStart := p.tok.pos
		switch {
		case p.tok.kind == tStar:
			p.next()
			x := &Starred{X: p.expr()}
			x.Loc = p.span(argStart)
			if len(p.kws) > kwMark && p.kws[len(p.kws)-1].Name == nil {
				p.errorAt(x.Span(), CodeInvalidSyntax, "iterable argument unpacking follows keyword argument unpacking")
			}
			p.pushExpr(x)
		case p.tok.kind == tDStar:
			p.next()
			v := p.expr()
			kw := p.nodes.keywords.new()
			kw.Loc, kw.Value = p.span(argStart), v
			p.kws = append(p.kws, kw)
		case p.tok.kind == tName && p.peek(1) == tAssign:
			name := p.name()
			p.next()
			v := p.expr()
			kw := p.nodes.keywords.new()
			kw.Loc, kw.Name, kw.Value = p.span(argStart), name, v
			p.kws = append(p.kws, kw)
		default:
			x := p.namedExpr()
			if p.tok.kind == kFor || p.tok.kind == kAsync {
				gens := p.comprehensions()
				bareGen = &GeneratorExp{Loc: p.span(argStart), Elt: x, Generators: gens}
				x = bareGen
				if len(p.exprs) > mark || len(p.kws) > kwMark || p.tok.kind == tComma {
					p.errorAt(x.Span(), CodeInvalidSyntax, "generator expression must be parenthesized")
				}
			} else if p.tok.kind == tAssign {
				p.errorAt(x.Span(), CodeInvalidSyntax, "expected argument name before '='")
			} else if len(p.kws) > kwMark {
				if p.kws[len(p.kws)-1].Name == nil {
					p.errorAt(x.Span(), CodeInvalidSyntax, "positional argument follows keyword argument unpacking")
				} else {
					p.errorAt(x.Span(), CodeInvalidSyntax, "positional argument follows keyword argument")
				}
			}
			p.pushExpr(x)
		}
		if !p.got(tComma) {
			break
		}
	}
	args := p.popExprs(mark)
	kws := p.popKeywords(kwMark)
	if p.tok.kind == tRParen && bareGen != nil && len(args) == 1 && len(kws) == 0 {
		// f(x for x in y): the call's parentheses are the generator's.
		bareGen.Loc = source.Span{Start: lparen, End: p.tok.end}
	}
	p.closeBracket(open, tRParen, "call")
	return args, kws
}

// subscriptIndex parses slices: slice (',' slice)* [','].
func (p *parser) subscriptIndex() Expr {
	start := p.tok.pos
	x := p.slice()
	if p.tok.kind != tComma {
		if _, ok := x.(*Starred); ok {
			// a[*b] indexes with the tuple (*b,), as in CPython.
			t := p.nodes.tuples.new()
			t.Elts = []Expr{x}
			t.Loc = p.span(start)
			return t
		}
		return x
	}
	mark := len(p.exprs)
	p.pushExpr(x)
	for p.got(tComma) && !p.stmtErr {
		if p.tok.kind == tRBrack {
			break
		}
		p.pushExpr(p.slice())
	}
	t := p.nodes.tuples.new()
	t.Elts = p.popExprs(mark)
	t.Loc = p.span(start)
	return t
}

// slice parses [expr] ':' [expr] [':' [expr]], or a starred or named expression.
func (p *parser) slice() Expr {
	start := p.tok.pos
	if p.tok.kind == tStar {
		return p.starred()
	}
	var lower Expr
	if p.tok.kind != tColon {
		lower = p.namedExpr()
		if p.tok.kind != tColon {
			return lower
		}
	}
	s := p.nodes.slices.new()
	s.Lower = lower
	p.next() // :
	if p.tok.kind != tColon && p.tok.kind != tComma && p.tok.kind != tRBrack {
		s.Upper = p.expr()
	}
	if p.got(tColon) {
		if p.tok.kind != tComma && p.tok.kind != tRBrack {
			s.Step = p.expr()
		}
	}
	s.Loc = p.span(start)
	return s
}

// atom parses names, literals and displays.
func (p *parser) atom() Expr {
	t := p.tok
	switch t.kind {
	case tName:
		return p.name()
	case tInt, tFloat, tImag:
		c := p.nodes.consts.new()
		c.Loc = source.Span{Start: t.pos, End: t.end}
		c.Kind = Int + ConstKind(t.kind-tInt)
		c.Value = p.str(t.pos, t.end)
		p.next()
		return c
	case kNone, kTrue, kFalse, tEllipsis:
		c := p.nodes.consts.new()
		c.Loc = source.Span{Start: t.pos, End: t.end}
		c.Value = p.str(t.pos, t.end)
		switch t.kind {
		case kNone:
			c.Kind = None
		case kTrue:
			c.Kind = True
		case kFalse:
			c.Kind = False
		default:
			c.Kind = Ellipsis
		}
		p.next()
		return c
	case tString, tFStart:
		return p.strings()
	case tLParen:
		return p.paren()
	case tLBrack:
		return p.listDisplay()
	case tLBrace:
		return p.braceDisplay()
	case kYield:
		p.errorTok(CodeInvalidSyntax, "yield expression must be parenthesized here")
		return p.yieldExpr()
	case tStar:
		p.errorTok(CodeInvalidSyntax, "starred expression is not allowed here")
		return p.starred()
	}
	return p.badExpr("")
}

// paren parses a parenthesized expression, tuple, generator or yield.
func (p *parser) paren() Expr {
	start, open := p.tok.pos, p.i
	p.next() // (
	if !p.enter() {
		return p.badExpr("")
	}
	defer p.leave()
	if p.tok.kind == tRParen {
		p.next()
		t := p.nodes.tuples.new()
		t.Loc, t.Parens = p.span(start), true
		return t
	}
	if p.tok.kind == kYield {
		x := p.yieldExpr()
		p.closeBracket(open, tRParen, "parenthesized expression")
		return x
	}
	x := p.starNamedExpr()
	switch p.tok.kind {
	case kFor, kAsync:
		gens := p.comprehensions()
		p.closeBracket(open, tRParen, "generator expression")
		return &GeneratorExp{Loc: p.span(start), Elt: x, Generators: gens}
	case tComma:
		mark := len(p.exprs)
		p.pushExpr(x)
		for p.got(tComma) && !p.stmtErr {
			if p.tok.kind == tRParen {
				break
			}
			p.pushExpr(p.starNamedExpr())
		}
		elts := p.popExprs(mark)
		p.closeBracket(open, tRParen, "tuple")
		t := p.nodes.tuples.new()
		t.Loc, t.Elts, t.Parens = p.span(start), elts, true
		return t
	}
	if _, ok := x.(*Starred); ok && !p.stmtErr {
		p.errorAt(x.Span(), CodeInvalidSyntax, "cannot use starred expression here")
	}
	p.closeBracket(open, tRParen, "parenthesized expression")
	return x
}

func (p *parser) listDisplay() Expr {
	start, open := p.tok.pos, p.i
	p.next() // [
	if !p.enter() {
		return p.badExpr("")
	}
	defer p.leave()
	if p.tok.kind == tRBrack {
		p.next()
		l := p.nodes.lists.new()
		l.Loc = p.span(start)
		return l
	}
	x := p.starNamedExpr()
	if p.tok.kind == kFor || p.tok.kind == kAsync {
		gens := p.comprehensions()
		p.closeBracket(open, tRBrack, "list comprehension")
		return &ListComp{Loc: p.span(start), Elt: x, Generators: gens}
	}
	mark := len(p.exprs)
	p.pushExpr(x)
	for p.got(tComma) && !p.stmtErr {
		if p.tok.kind == tRBrack {
			break
		}
		p.pushExpr(p.starNamedExpr())
	}
	elts := p.popExprs(mark)
	p.closeBracket(open, tRBrack, "list")
	l := p.nodes.lists.new()
	l.Loc, l.Elts = p.span(start), elts
	return l
}

// braceDisplay parses a dict, set, or their comprehensions.
func (p *parser) braceDisplay() Expr {
	start, open := p.tok.pos, p.i
	p.next() // {
	if !p.enter() {
		return p.badExpr("")
	}
	defer p.leave()
	if p.tok.kind == tRBrace {
		p.next()
		return &Dict{Loc: p.span(start)}
	}
	var first Expr
	if p.tok.kind == tDStar {
		p.next()
		first = nil
	} else {
		first = p.starNamedExpr()
		if p.tok.kind != tColon {
			// A set or set comprehension.
			if p.tok.kind == kFor || p.tok.kind == kAsync {
				gens := p.comprehensions()
				p.closeBracket(open, tRBrace, "set comprehension")
				return &SetComp{Loc: p.span(start), Elt: first, Generators: gens}
			}
			mark := len(p.exprs)
			p.pushExpr(first)
			for p.got(tComma) && !p.stmtErr {
				if p.tok.kind == tRBrace {
					break
				}
				p.pushExpr(p.starNamedExpr())
			}
			elts := p.popExprs(mark)
			p.closeBracket(open, tRBrace, "set")
			return &Set{Loc: p.span(start), Elts: elts}
		}
		p.next() // :
	}
	// A dict or dict comprehension; the first key (or ** marker) is parsed.
	value := p.expr()
	if first != nil && (p.tok.kind == kFor || p.tok.kind == kAsync) {
		gens := p.comprehensions()
		p.closeBracket(open, tRBrace, "dict comprehension")
		return &DictComp{Loc: p.span(start), Key: first, Value: value, Generators: gens}
	}
	// Keys and values are pushed interleaved, then split.
	mark := len(p.exprs)
	p.pushExpr(first)
	p.pushExpr(value)
	for p.got(tComma) && !p.stmtErr {
		if p.tok.kind == tRBrace {
			break
		}
		if p.got(tDStar) {
			p.pushExpr(nil)
			p.pushExpr(p.bitOr())
			continue
		}
		p.pushExpr(p.expr())
		if !p.expect(tColon, "after dict key") {
			p.pushExpr(p.badExpr(""))
			break
		}
		p.pushExpr(p.expr())
	}
	pairs := p.exprs[mark:]
	d := &Dict{Keys: p.nodes.exprSlice(len(pairs) / 2), Values: p.nodes.exprSlice(len(pairs) / 2)}
	for i := range d.Keys {
		d.Keys[i], d.Values[i] = pairs[2*i], pairs[2*i+1]
	}
	clear(pairs)
	p.exprs = p.exprs[:mark]
	p.closeBracket(open, tRBrace, "dict")
	d.Loc = p.span(start)
	return d
}

// comprehensions parses one or more "[async] for ... in ... [if ...]" clauses.
func (p *parser) comprehensions() []*Comprehension {
	var gens []*Comprehension
	for (p.tok.kind == kFor || p.tok.kind == kAsync && p.peek(1) == kFor) && !p.stmtErr {
		start := p.tok.pos
		c := &Comprehension{}
		if p.got(kAsync) {
			c.IsAsync = true
		}
		p.next() // for
		c.Target = p.exprList(p.starTarget)
		p.checkTarget(c.Target, "comprehension target")
		if p.expect(kIn, "in comprehension") {
			c.Iter = p.disjunction()
		} else {
			c.Iter = p.badExpr("")
		}
		mark := len(p.exprs)
		for p.tok.kind == kIf && !p.stmtErr {
			p.next()
			p.pushExpr(p.disjunction())
		}
		c.Ifs = p.popExprs(mark)
		c.Loc = p.span(start)
		gens = append(gens, c)
	}
	return gens
}

func (p *parser) lambda() Expr {
	start := p.tok.pos
	p.next() // lambda
	params := p.params(tColon, true)
	var body Expr
	if p.expect(tColon, "after lambda parameters") {
		if !p.enter() {
			return p.badExpr("")
		}
		body = p.expr()
		p.leave()
	} else {
		body = p.badExpr("")
	}
	return &Lambda{Loc: p.span(start), Params: params, Body: body}
}

// yieldExpr parses "yield [star_expressions]" or "yield from expr".
func (p *parser) yieldExpr() Expr {
	start := p.tok.pos
	p.next() // yield
	if p.got(kFrom) {
		v := p.expr()
		return &YieldFrom{Loc: p.span(start), Value: v}
	}
	var v Expr
	if canStartExpr(p.tok.kind) {
		v = p.starExprs()
	}
	return &Yield{Loc: p.span(start), Value: v}
}

// params parses a parameter list up to (not including) closer. For a
// lambda there are no annotations.
func (p *parser) params(closer tokKind, lambda bool) *Params {
	ps := &Params{}
	start := p.tok.pos
	lambdaEnd := p.prevEnd // end of "lambda"
	if !lambda {
		start = p.prevEnd - 1 // include the "(" just consumed
	}
	seenDefault := false
	kwonly := false // after * or *args
	for p.tok.kind != closer && !p.stmtErr {
		switch p.tok.kind {
		case tSlash:
			if kwonly || ps.Posonly != nil || len(ps.Args) == 0 {
				p.errorTok(CodeInvalidSyntax, "'/' must follow at least one parameter and come before '*'")
				break
			}
			p.next()
			ps.Posonly, ps.Args = ps.Args, nil
		case tStar:
			if kwonly {
				p.errorTok(CodeInvalidSyntax, "'*' may appear only once")
				break
			}
			p.next()
			kwonly = true
			if p.tok.kind == tName {
				ps.Vararg = p.param(lambda, true)
				if ps.Vararg.Default != nil {
					p.errorAt(ps.Vararg.Default.Span(), CodeInvalidSyntax, "var-positional parameter cannot have a default value")
				}
			} else if p.tok.kind == closer || p.tok.kind == tComma && p.peek(1) == closer {
				p.errorAt(p.tokSpan(), CodeInvalidSyntax, "named parameters must follow bare '*'")
			}
		case tDStar:
			p.next()
			if p.tok.kind != tName {
				p.expectName("after '**'")
				break
			}
			ps.Kwarg = p.param(lambda, false)
			if ps.Kwarg.Default != nil {
				p.errorAt(ps.Kwarg.Default.Span(), CodeInvalidSyntax, "var-keyword parameter cannot have a default value")
			}
			if p.tok.kind == tComma && p.peek(1) != closer {
				p.next()
				p.errorTok(CodeInvalidSyntax, "parameters cannot follow var-keyword parameter")
			}
		case tName:
			x := p.param(lambda, false)
			if kwonly {
				ps.Kwonly = append(ps.Kwonly, x)
			} else {
				if x.Default != nil {
					seenDefault = true
				} else if seenDefault {
					p.errorAt(x.Loc, CodeInvalidSyntax, "parameter without a default follows parameter with a default")
				}
				ps.Args = append(ps.Args, x)
			}
		default:
			if lambda {
				p.errorExpected("parameter name or ':'")
			} else {
				p.errorExpected("parameter name or ')'")
			}
		}
		if p.stmtErr || !p.got(tComma) {
			break
		}
	}
	if !lambda {
		ps.Loc = source.Span{Start: start, End: p.tok.end} // through the ")"
		if p.tok.kind != closer {
			ps.Loc.End = p.prevEnd
		}
	} else {
		ps.Loc = p.span(start)
		if p.prevEnd <= lambdaEnd {
			// No parameters: an empty span right after "lambda".
			ps.Loc = source.Span{Start: lambdaEnd, End: lambdaEnd}
		}
	}
	return ps
}

// param parses NAME [':' annotation] ['=' default].
func (p *parser) param(lambda, star bool) *Param {
	start := p.tok.pos
	x := p.nodes.params.new()
	x.Name = p.name()
	if !lambda && p.got(tColon) {
		if star && p.tok.kind == tStar {
			x.Annotation = p.starred()
		} else {
			x.Annotation = p.expr()
		}
	}
	if p.got(tAssign) {
		x.Default = p.expr()
	}
	x.Loc = p.span(start)
	return x
}

// describeExpr names an expression kind for "cannot assign to ..." messages.
func describeExpr(x Expr) string {
	switch x := x.(type) {
	case *Name:
		return "name"
	case *Attribute:
		return "attribute"
	case *Subscript:
		return "subscript"
	case *Call:
		return "function call"
	case *Constant:
		switch x.Kind {
		case True, False, None:
			return x.Value
		case Ellipsis:
			return "ellipsis"
		}
		return "literal"
	case *JoinedStr:
		return "f-string expression"
	case *BinOp, *UnaryOp:
		return "expression"
	case *BoolOp:
		return "expression"
	case *Compare:
		return "comparison"
	case *Lambda:
		return "lambda"
	case *IfExp:
		return "conditional expression"
	case *NamedExpr:
		return "named expression"
	case *Await:
		return "await expression"
	case *Yield, *YieldFrom:
		return "yield expression"
	case *ListComp:
		return "list comprehension"
	case *SetComp:
		return "set comprehension"
	case *DictComp:
		return "dict comprehension"
	case *GeneratorExp:
		return "generator expression"
	case *Dict:
		return "dict literal"
	case *Set:
		return "set display"
	case *Tuple:
		return "tuple"
	case *List:
		return "list"
	case *Starred:
		return "starred"
	case *Slice:
		return "slice"
	}
	return "expression"
}

// checkTarget reports x if it cannot be the target of an assignment, for
// loop, with item or comprehension. what names the construct.
func (p *parser) checkTarget(x Expr, what string) {
	switch x := x.(type) {
	case *Name, *Attribute, *Subscript, *BadExpr:
	case *Starred:
		p.checkTarget(x.X, what)
	case *Tuple:
		for _, e := range x.Elts {
			p.checkTarget(e, what)
		}
	case *List:
		for _, e := range x.Elts {
			p.checkTarget(e, what)
		}
	default:
		p.errorAt(x.Span(), CodeInvalidTarget, "cannot assign to %s in %s", describeExpr(x), what)
	}
}
