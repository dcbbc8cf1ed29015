package syntax

import "github.com/tilels/tilels/dsl/source"

// isMatchStmt reports whether the soft keyword "match" at the current token
// starts a match statement: it must be followed by an expression and its
// logical line must end with ':', which no expression statement can.
func (p *parser) isMatchStmt() bool {
	if !canStartExpr(p.peek(1)) {
		return false
	}
	last := tEOF
	for k := p.i + 1; k < len(p.toks); k++ {
		switch kind := p.toks[k].kind; kind {
		case tNewline, tEOF:
			return last == tColon
		default:
			last = kind
		}
	}
	return false
}

// matchStmt parses a match statement; the current token is "match".
func (p *parser) matchStmt() Stmt {
	start := p.tok.pos
	p.next() // match
	s := &Match{Subject: p.exprList(p.starNamedExpr)}
	p.colon("after match subject")
	if !p.got(tNewline) || p.tok.kind != tIndent {
		p.errorAt(p.tokSpan(), CodeBadIndent, "expected an indented block after 'match' statement")
		s.Loc = p.span(start)
		return s
	}
	p.next() // INDENT
	for p.tok.kind != tDedent && p.tok.kind != tEOF {
		p.stmtErr = false
		if p.got(tNewline) {
			continue
		}
		if !p.isSoft("case") {
			p.errorExpected("'case' block")
			p.skipLine()
			p.got(tNewline)
			if p.tok.kind == tIndent {
				p.skipBlock()
			}
			continue
		}
		s.Cases = append(s.Cases, p.caseClause())
	}
	p.got(tDedent)
	p.stmtErr = false
	s.Loc = p.span(start)
	return s
}

func (p *parser) caseClause() *MatchCase {
	start := p.tok.pos
	p.next() // case
	c := &MatchCase{Pattern: p.patterns()}
	if p.got(kIf) {
		c.Guard = p.namedExpr()
	}
	p.colon("after case pattern")
	c.Body = p.suite("'case' block")
	c.Loc = p.span(start)
	return c
}

func canStartPattern(k tokKind) bool {
	switch k {
	case tName, tInt, tFloat, tImag, tString, tFStart, tLParen, tLBrack, tLBrace,
		tMinus, kNone, kTrue, kFalse, tStar:
		return true
	}
	return false
}

// patterns parses an open sequence pattern or a single pattern.
func (p *parser) patterns() Pattern {
	start := p.tok.pos
	first := p.starPattern()
	if p.tok.kind != tComma {
		if _, ok := first.(*MatchStar); ok {
			return &MatchSequence{Loc: p.span(start), Patterns: []Pattern{first}}
		}
		return first
	}
	pats := []Pattern{first}
	for p.got(tComma) && canStartPattern(p.tok.kind) && !p.stmtErr {
		pats = append(pats, p.starPattern())
	}
	return &MatchSequence{Loc: p.span(start), Patterns: pats}
}

// starPattern parses '*' NAME or a pattern.
func (p *parser) starPattern() Pattern {
	if p.tok.kind != tStar {
		return p.pattern()
	}
	start := p.tok.pos
	p.next()
	s := &MatchStar{}
	if n := p.expectName("after '*' in pattern"); n != nil && n.Id != "_" {
		s.Name = n
	}
	s.Loc = p.span(start)
	return s
}

// pattern parses or_pattern ['as' NAME].
func (p *parser) pattern() Pattern {
	start := p.tok.pos
	if !p.enter() {
		p.leave()
		return &MatchValue{Loc: p.span(start), Value: p.badExpr("")}
	}
	defer p.leave()
	pat := p.orPattern()
	if !p.got(kAs) {
		return pat
	}
	n := p.expectName("after 'as'")
	if n == nil {
		return pat
	}
	if n.Id == "_" {
		p.errorAt(n.Loc, CodeInvalidTarget, "cannot use '_' as a target")
	}
	return &MatchAs{Loc: p.span(start), Pattern: pat, Name: n}
}

func (p *parser) orPattern() Pattern {
	start := p.tok.pos
	first := p.closedPattern()
	if p.tok.kind != tPipe {
		return first
	}
	pats := []Pattern{first}
	for p.got(tPipe) && !p.stmtErr {
		pats = append(pats, p.closedPattern())
	}
	return &MatchOr{Loc: p.span(start), Patterns: pats}
}

// closedPattern parses a literal, capture, wildcard, value, group,
// sequence, mapping or class pattern.
func (p *parser) closedPattern() Pattern {
	start := p.tok.pos
	switch p.tok.kind {
	case tName:
		if p.peek(1) != tDot && p.peek(1) != tLParen {
			n := p.name()
			if n.Id == "_" {
				return &MatchAs{Loc: n.Loc}
			}
			return &MatchAs{Loc: n.Loc, Name: n}
		}
		var x Expr = p.name()
		for p.tok.kind == tDot {
			p.next()
			attr := p.expectName("after '.'")
			if attr == nil {
				return &MatchValue{Loc: p.span(start), Value: x}
			}
			x = &Attribute{Loc: p.span(start), X: x, Attr: attr}
		}
		if p.tok.kind == tLParen {
			return p.classPattern(start, x)
		}
		return &MatchValue{Loc: p.span(start), Value: x}
	case kNone, kTrue, kFalse:
		c := p.atom().(*Constant)
		return &MatchSingleton{Loc: c.Loc, Value: c}
	case tInt, tFloat, tImag, tMinus, tString, tFStart:
		x := p.literalPatternExpr()
		return &MatchValue{Loc: p.span(start), Value: x}
	case tLParen:
		open := p.i
		p.next()
		if p.got(tRParen) {
			return &MatchSequence{Loc: p.span(start)}
		}
		first := p.starPattern()
		if p.tok.kind != tComma {
			p.closeBracket(open, tRParen, "pattern group")
			if _, ok := first.(*MatchStar); ok {
				return &MatchSequence{Loc: p.span(start), Patterns: []Pattern{first}}
			}
			return first
		}
		pats := []Pattern{first}
		for p.got(tComma) && p.tok.kind != tRParen && !p.stmtErr {
			pats = append(pats, p.starPattern())
		}
		p.closeBracket(open, tRParen, "sequence pattern")
		return &MatchSequence{Loc: p.span(start), Patterns: pats}
	case tLBrack:
		open := p.i
		p.next()
		var pats []Pattern
		for p.tok.kind != tRBrack && !p.stmtErr {
			pats = append(pats, p.starPattern())
			if !p.got(tComma) {
				break
			}
		}
		p.closeBracket(open, tRBrack, "sequence pattern")
		return &MatchSequence{Loc: p.span(start), Patterns: pats}
	case tLBrace:
		return p.mappingPattern()
	}
	return &MatchValue{Loc: p.span(start), Value: p.badExpr("in pattern")}
}

// literalPatternExpr parses a signed number, complex literal or string.
func (p *parser) literalPatternExpr() Expr {
	start := p.tok.pos
	switch p.tok.kind {
	case tString, tFStart:
		x := p.strings()
		if _, ok := x.(*JoinedStr); ok {
			p.errorAt(x.Span(), CodeInvalidSyntax, "patterns may only match literals and attribute lookups")
		}
		return x
	case kNone, kTrue, kFalse:
		return p.atom()
	}
	var x Expr
	if p.tok.kind == tMinus {
		p.next()
		if p.tok.kind != tInt && p.tok.kind != tFloat && p.tok.kind != tImag {
			return p.badExpr("in pattern")
		}
		x = &UnaryOp{Op: "-", X: p.atom()}
		x.(*UnaryOp).Loc = p.span(start)
	} else if p.tok.kind == tInt || p.tok.kind == tFloat || p.tok.kind == tImag {
		x = p.atom()
	} else {
		return p.badExpr("in pattern")
	}
	if p.tok.kind == tPlus || p.tok.kind == tMinus {
		op := binOpStr[p.tok.kind-tPlus]
		p.next()
		if p.tok.kind != tImag {
			p.errorExpected("imaginary number in complex literal pattern")
			return x
		}
		y := p.atom()
		x = &BinOp{Loc: p.span(start), X: x, Op: op, Y: y}
	}
	return x
}

func (p *parser) mappingPattern() Pattern {
	start, open := p.tok.pos, p.i
	p.next() // {
	m := &MatchMapping{}
	for p.tok.kind != tRBrace && !p.stmtErr {
		if p.got(tDStar) {
			m.Rest = p.expectName("after '**' in mapping pattern")
			p.got(tComma)
			break
		}
		var key Expr
		if p.tok.kind == tName {
			kStart := p.tok.pos
			key = p.name()
			for p.tok.kind == tDot {
				p.next()
				attr := p.expectName("after '.'")
				if attr == nil {
					break
				}
				key = &Attribute{Loc: p.span(kStart), X: key, Attr: attr}
			}
			if _, ok := key.(*Name); ok {
				p.errorAt(key.Span(), CodeInvalidSyntax, "mapping pattern keys may only match literals and attribute lookups")
			}
		} else {
			key = p.literalPatternExpr()
		}
		m.Keys = append(m.Keys, key)
		if !p.expect(tColon, "after mapping pattern key") {
			m.Patterns = append(m.Patterns, &MatchValue{Loc: source.Span{Start: p.prevEnd, End: p.prevEnd}, Value: p.badExpr("")})
			break
		}
		m.Patterns = append(m.Patterns, p.pattern())
		if !p.got(tComma) {
			break
		}
	}
	p.closeBracket(open, tRBrace, "mapping pattern")
	m.Loc = p.span(start)
	return m
}

// classPattern parses the arguments of a class pattern Cls(...).
func (p *parser) classPattern(start source.Pos, cls Expr) Pattern {
	open := p.i
	p.next() // (
	c := &MatchClass{Cls: cls}
	for p.tok.kind != tRParen && !p.stmtErr {
		if p.tok.kind == tName && p.peek(1) == tAssign {
			c.KwdAttrs = append(c.KwdAttrs, p.name())
			p.next()
			c.KwdPatterns = append(c.KwdPatterns, p.pattern())
		} else {
			pat := p.pattern()
			if len(c.KwdAttrs) > 0 {
				p.errorAt(pat.Span(), CodeInvalidSyntax, "positional patterns follow keyword patterns")
			}
			c.Patterns = append(c.Patterns, pat)
		}
		if !p.got(tComma) {
			break
		}
	}
	p.closeBracket(open, tRParen, "class pattern")
	c.Loc = p.span(start)
	return c
}
