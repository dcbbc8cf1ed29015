package syntax

import (
	"strings"

	"github.com/tilels/tilels/dsl/source"
)

// parseFile parses the whole token stream.
func (p *parser) parseFile() []Stmt {
	mark := len(p.stmts)
	for p.tok.kind != tEOF && !p.stopped {
		p.blockStmts()
		if p.tok.kind == tDedent && !p.stopped {
			p.next() // unbalanced; cannot happen with lexer-made dedents
		}
	}
	return p.popStmts(mark)
}

// blockStmts parses statements up to a DEDENT or EOF, pushing them on p.stmts.
func (p *parser) blockStmts() {
	p.level++
	for p.tok.kind != tDedent && p.tok.kind != tEOF {
		p.stmtErr = false
		switch p.tok.kind {
		case tIndent:
			// Recover by parsing the over-indented lines as part of this block.
			p.errorTok(CodeBadIndent, "unexpected indent")
			if p.depth >= maxDepth {
				p.skipBlock()
				continue
			}
			p.next()
			p.depth++
			p.blockStmts()
			p.depth--
			p.got(tDedent)
			continue
		case tNewline:
			p.next()
			continue
		}
		if p.level == 1 && p.atSeam() {
			if p.atStop() {
				p.stopped = true
				break
			}
			p.seams = append(p.seams, p.tok.pos)
		}
		p.statement()
	}
	p.level--
}

func (p *parser) pushStmt(s Stmt) { p.stmts = append(p.stmts, s) }

// statement parses one statement line (or compound statement) onto p.stmts.
func (p *parser) statement() {
	switch p.tok.kind {
	case kDef, kClass, kIf, kWhile, kFor, kTry, kWith, tAt:
		p.pushStmt(p.compound())
		return
	case kAsync:
		if k := p.peek(1); k == kDef || k == kFor || k == kWith {
			p.pushStmt(p.compound())
			return
		}
	case tName:
		if p.isSoft("match") && p.isMatchStmt() {
			p.pushStmt(p.matchStmt())
			return
		}
	}
	p.simpleStmts()
}

// compound parses a compound statement, bounding nesting depth.
func (p *parser) compound() Stmt {
	start := p.tok.pos
	if !p.enter() {
		p.leave()
		p.skipLine()
		p.got(tNewline)
		if p.tok.kind == tIndent {
			p.skipBlock()
		}
		return &BadStmt{From: start, To: p.prevEnd}
	}
	defer p.leave()
	switch p.tok.kind {
	case tAt:
		return p.decorated()
	case kDef:
		return p.funcDef(start, nil, false)
	case kClass:
		return p.classDef(start, nil)
	case kIf:
		return p.ifStmt(false)
	case kWhile:
		return p.whileStmt()
	case kFor:
		return p.forStmt(start, false)
	case kTry:
		return p.tryStmt()
	case kWith:
		return p.withStmt(start, false)
	case kAsync:
		p.next()
		switch p.tok.kind {
		case kDef:
			return p.funcDef(start, nil, true)
		case kFor:
			return p.forStmt(start, true)
		default:
			return p.withStmt(start, true)
		}
	}
	panic("unreachable")
}

// simpleStmts parses simple statements separated by ';' and the NEWLINE
// ending them.
func (p *parser) simpleStmts() {
	for {
		s := p.simpleStmt()
		if es, ok := s.(*ExprStmt); ok && p.stmtErr && es.Loc.Len() == 0 {
			// Nothing could be parsed: endLine makes the line a BadStmt.
			break
		}
		p.pushStmt(s)
		if p.stmtErr || p.tok.kind != tSemi {
			break
		}
		p.next()
		if p.tok.kind == tNewline || p.tok.kind == tEOF {
			break
		}
	}
	p.endLine()
}

// endLine consumes the NEWLINE ending a simple statement line. Anything
// before it is reported (unless the line already has an error) and skipped,
// becoming a BadStmt.
func (p *parser) endLine() {
	if p.tok.kind == tNewline {
		p.next()
		return
	}
	if p.tok.kind == tEOF || p.tok.kind == tDedent {
		return
	}
	if !p.stmtErr {
		p.errorUnexpected("")
	}
	from := p.tok.pos
	last := tEOF
	for p.tok.kind != tNewline && p.tok.kind != tEOF && p.tok.kind != tIndent && p.tok.kind != tDedent {
		last = p.tok.kind
		p.next()
	}
	if p.prevEnd > from {
		p.pushStmt(&BadStmt{From: from, To: p.prevEnd})
	}
	p.got(tNewline)
	if last == tColon && p.tok.kind == tIndent {
		// The line was probably a broken compound statement header: keep
		// its block, without a second error for the indentation.
		p.next()
		if p.depth < maxDepth {
			p.depth++
			p.blockStmts()
			p.depth--
		}
		p.got(tDedent)
	}
}

// skipLine skips tokens up to (not including) the NEWLINE ending the line.
func (p *parser) skipLine() {
	for p.tok.kind != tNewline && p.tok.kind != tEOF {
		if p.tok.kind == tIndent || p.tok.kind == tDedent {
			// Unreachable with a consistent lexer: these follow NEWLINE.
			break
		}
		p.next()
	}
}

// skipBlock skips an INDENT ... DEDENT block (the current token is INDENT).
func (p *parser) skipBlock() {
	depth := 0
	for p.tok.kind != tEOF {
		switch p.tok.kind {
		case tIndent:
			depth++
		case tDedent:
			depth--
			if depth == 0 {
				p.next()
				return
			}
		}
		p.next()
	}
}

// colon expects the ':' ending a compound statement header. On error the
// rest of the header is skipped, so that the block can still be parsed.
func (p *parser) colon(context string) {
	if p.tok.kind == tColon {
		p.next()
		return
	}
	if !p.stmtErr {
		if p.tok.kind == tNewline && p.tok.flags&tfErr == 0 {
			p.errorAt(source.Span{Start: p.prevEnd, End: p.prevEnd}, CodeUnexpectedToken, "expected ':' %s", context)
		} else {
			p.errorExpected("':' " + context)
		}
	}
	// Skip to the header's ':' if the line has one outside brackets, so
	// that a body on the same line is kept; otherwise to the line's end.
	depth := 0
	for k := p.i; k < len(p.toks); k++ {
		switch p.toks[k].kind {
		case tLParen, tLBrack, tLBrace:
			depth++
		case tRParen, tRBrack, tRBrace:
			depth--
		case tColon:
			if depth <= 0 {
				for p.i < k {
					p.next()
				}
				p.next()
				return
			}
		case tNewline, tEOF:
			p.skipLine()
			return
		}
	}
	p.skipLine()
}

// suite parses the body of a compound statement after its ':'.
func (p *parser) suite(what string) []Stmt {
	mark := len(p.stmts)
	if p.tok.kind != tNewline {
		if p.tok.kind == tEOF || p.tok.kind == tDedent {
			p.errorAt(source.Span{Start: p.prevEnd, End: p.prevEnd}, CodeBadIndent, "expected an indented block after %s", what)
			return nil
		}
		p.simpleStmts()
		return p.popStmts(mark)
	}
	p.next()
	if p.tok.kind != tIndent {
		p.errorAt(p.tokSpan(), CodeBadIndent, "expected an indented block after %s", what)
		return nil
	}
	p.next()
	p.blockStmts()
	p.got(tDedent)
	p.stmtErr = false
	return p.popStmts(mark)
}

// decorated parses decorators and the def or class they decorate.
func (p *parser) decorated() Stmt {
	start := p.tok.pos
	mark := len(p.exprs)
	for p.tok.kind == tAt {
		p.next()
		p.pushExpr(p.namedExpr())
		if p.tok.kind != tNewline {
			if !p.stmtErr {
				p.errorUnexpected("after decorator")
			}
			p.skipLine()
		}
		p.got(tNewline)
		p.stmtErr = false
	}
	decorators := p.popExprs(mark)
	switch p.tok.kind {
	case kDef:
		return p.funcDef(start, decorators, false)
	case kClass:
		return p.classDef(start, decorators)
	case kAsync:
		if p.peek(1) == kDef {
			p.next()
			return p.funcDef(start, decorators, true)
		}
	}
	p.errorExpected("'def' or 'class' after decorator")
	return &BadStmt{From: start, To: p.prevEnd}
}

// funcDef parses a def; the current token is "def".
func (p *parser) funcDef(start source.Pos, decorators []Expr, async bool) Stmt {
	p.next() // def
	name := p.expectName("after 'def'")
	if name == nil {
		p.skipLine()
		p.suite("function definition")
		return &BadStmt{From: start, To: p.prevEnd}
	}
	f := &FunctionDef{Decorators: decorators, Name: name, IsAsync: async}
	if p.tok.kind == tLBrack {
		f.TypeParams = p.typeParams()
	}
	if p.tok.kind == tLParen {
		open := p.i
		p.next()
		f.Params = p.params(tRParen, false)
		p.closeBracket(open, tRParen, "parameter list")
	} else {
		p.errorExpected("'(' after function name")
		f.Params = &Params{Loc: source.Span{Start: p.prevEnd, End: p.prevEnd}}
	}
	if p.got(tArrow) {
		f.Returns = p.expr()
	}
	p.colon("after function signature")
	f.Body = p.suite("function definition")
	f.Loc = p.span(start)
	return f
}

// classDef parses a class; the current token is "class".
func (p *parser) classDef(start source.Pos, decorators []Expr) Stmt {
	p.next() // class
	name := p.expectName("after 'class'")
	if name == nil {
		p.skipLine()
		p.suite("class definition")
		return &BadStmt{From: start, To: p.prevEnd}
	}
	c := &ClassDef{Decorators: decorators, Name: name}
	if p.tok.kind == tLBrack {
		c.TypeParams = p.typeParams()
	}
	if p.tok.kind == tLParen {
		c.Bases, c.Keywords = p.arguments()
	}
	p.colon("after class definition")
	c.Body = p.suite("class definition")
	c.Loc = p.span(start)
	return c
}

// typeParams parses "[" type_param ("," type_param)* [","] "]".
func (p *parser) typeParams() []*TypeParam {
	open := p.i
	p.next() // [
	var tps []*TypeParam
	for p.tok.kind != tRBrack && !p.stmtErr {
		start := p.tok.pos
		tp := &TypeParam{Kind: TypeVar}
		if p.got(tStar) {
			tp.Kind = TypeVarTuple
		} else if p.got(tDStar) {
			tp.Kind = ParamSpec
		}
		tp.Name = p.expectName("in type parameter list")
		if tp.Name == nil {
			break
		}
		if p.got(tColon) {
			tp.Bound = p.expr()
			if tp.Kind == TypeVarTuple {
				p.errorAt(tp.Bound.Span(), CodeInvalidSyntax, "cannot use bound with TypeVarTuple")
			} else if tp.Kind == ParamSpec {
				p.errorAt(tp.Bound.Span(), CodeInvalidSyntax, "cannot use bound with ParamSpec")
			}
		}
		if p.got(tAssign) {
			if tp.Kind == TypeVarTuple && p.tok.kind == tStar {
				tp.Default = p.starred()
			} else {
				tp.Default = p.expr()
			}
		}
		tp.Loc = p.span(start)
		tps = append(tps, tp)
		if !p.got(tComma) {
			break
		}
	}
	if len(tps) == 0 && !p.stmtErr {
		p.errorExpected("type parameter")
	}
	p.closeBracket(open, tRBrack, "type parameter list")
	return tps
}

func (p *parser) ifStmt(elif bool) *If {
	start := p.tok.pos
	p.next() // if or elif
	s := &If{IsElif: elif}
	s.Test = p.namedExpr()
	if elif {
		p.colon("after elif condition")
	} else {
		p.colon("after if condition")
	}
	s.Body = p.suite("'if' statement")
	switch p.tok.kind {
	case kElif:
		if p.enter() {
			s.Else = []Stmt{p.ifStmt(true)}
		}
		p.leave()
	case kElse:
		s.Else = p.elseClause("'else' clause")
	}
	s.Loc = p.span(start)
	return s
}

// elseClause parses "else: suite" and "finally: suite".
func (p *parser) elseClause(what string) []Stmt {
	kw := p.tok.kind
	p.next()
	p.colon("after '" + kw.String() + "'")
	return p.suite(what)
}

func (p *parser) whileStmt() Stmt {
	start := p.tok.pos
	p.next() // while
	s := &While{}
	s.Test = p.namedExpr()
	p.colon("after while condition")
	s.Body = p.suite("'while' statement")
	if p.tok.kind == kElse {
		s.Else = p.elseClause("'else' clause")
	}
	s.Loc = p.span(start)
	return s
}

// forStmt parses a for loop; the current token is "for".
func (p *parser) forStmt(start source.Pos, async bool) Stmt {
	p.next() // for
	s := &For{IsAsync: async}
	s.Target = p.exprList(p.starTarget)
	p.checkTarget(s.Target, "'for' loop")
	if p.tok.kind == kIn {
		p.next()
		s.Iter = p.starExprs()
	} else {
		p.errorExpected("'in' after for loop target")
		s.Iter = p.badExpr("")
	}
	p.colon("after for loop header")
	s.Body = p.suite("'for' statement")
	if p.tok.kind == kElse {
		s.Else = p.elseClause("'else' clause")
	}
	s.Loc = p.span(start)
	return s
}

// withStmt parses a with statement; the current token is "with".
func (p *parser) withStmt(start source.Pos, async bool) Stmt {
	p.next() // with
	s := &With{IsAsync: async}
	if p.tok.kind == tLParen && p.parenthesizedWithItems() {
		open := p.i
		p.next()
		for p.tok.kind != tRParen && !p.stmtErr {
			s.Items = append(s.Items, p.withItem())
			if !p.got(tComma) {
				break
			}
		}
		p.closeBracket(open, tRParen, "'with' item list")
	} else {
		s.Items = append(s.Items, p.withItem())
		for !p.stmtErr && p.got(tComma) {
			s.Items = append(s.Items, p.withItem())
		}
	}
	p.colon("after 'with' items")
	s.Body = p.suite("'with' statement")
	s.Loc = p.span(start)
	return s
}

// parenthesizedWithItems reports whether the "(" at the current token
// encloses with items, as in "with (a as b, c):", rather than starting an
// expression, as in "with (a, b) as c:" or "with (yield):".
func (p *parser) parenthesizedWithItems() bool {
	depth := 0
	items := false
	for k := p.i; k < len(p.toks); k++ {
		switch p.toks[k].kind {
		case tLParen, tLBrack, tLBrace:
			depth++
		case tRParen, tRBrack, tRBrace:
			depth--
			if depth == 0 {
				return items && k+1 < len(p.toks) && p.toks[k+1].kind == tColon
			}
		case kAs, tComma:
			if depth == 1 {
				items = true
			}
		case tNewline, tEOF:
			return false
		}
	}
	return false
}

func (p *parser) withItem() *WithItem {
	start := p.tok.pos
	it := &WithItem{Context: p.expr()}
	if p.got(kAs) {
		it.Vars = p.starTarget()
		p.checkTarget(it.Vars, "'with' statement")
	}
	it.Loc = p.span(start)
	return it
}

func (p *parser) tryStmt() Stmt {
	start := p.tok.pos
	p.next() // try
	s := &Try{}
	p.colon("after 'try'")
	s.Body = p.suite("'try' statement")
	for p.tok.kind == kExcept {
		hStart := p.tok.pos
		p.next()
		h := &ExceptHandler{}
		star := p.got(tStar)
		if len(s.Handlers) > 0 && star != s.Star && !p.stmtErr {
			p.errorAt(source.Span{Start: hStart, End: p.prevEnd}, CodeInvalidSyntax, "cannot have both 'except' and 'except*' on the same 'try'")
		}
		s.Star = s.Star || star
		if p.tok.kind != tColon {
			h.Type = p.expr()
			if p.tok.kind == tComma {
				p.errorAt(h.Type.Span(), CodeInvalidSyntax, "multiple exception types must be parenthesized")
			}
			if p.got(kAs) {
				h.Name = p.expectName("after 'as'")
			}
		} else if star {
			p.errorExpected("exception type after 'except*'")
		}
		p.colon("after 'except' clause")
		h.Body = p.suite("'except' clause")
		h.Loc = p.span(hStart)
		s.Handlers = append(s.Handlers, h)
	}
	if p.tok.kind == kElse {
		if len(s.Handlers) == 0 {
			p.errorTok(CodeInvalidSyntax, "'else' clause requires an 'except' clause")
		}
		s.Else = p.elseClause("'else' clause")
	}
	if p.tok.kind == kFinally {
		s.Finally = p.elseClause("'finally' clause")
	}
	if len(s.Handlers) == 0 && s.Finally == nil && !p.stmtErr {
		p.errorAt(p.tokSpan(), CodeUnexpectedToken, "expected 'except' or 'finally' block")
	}
	s.Loc = p.span(start)
	return s
}

// simpleStmt parses one simple statement.
func (p *parser) simpleStmt() Stmt {
	start := p.tok.pos
	switch p.tok.kind {
	case kPass:
		p.next()
		return &Pass{Loc: p.span(start)}
	case kBreak:
		p.next()
		return &Break{Loc: p.span(start)}
	case kContinue:
		p.next()
		return &Continue{Loc: p.span(start)}
	case kReturn:
		p.next()
		s := &Return{}
		if canStartExpr(p.tok.kind) {
			s.Value = p.starExprs()
		}
		s.Loc = p.span(start)
		return s
	case kRaise:
		p.next()
		s := &Raise{}
		if canStartExpr(p.tok.kind) {
			s.Exc = p.expr()
			if p.got(kFrom) {
				s.Cause = p.expr()
			}
		}
		s.Loc = p.span(start)
		return s
	case kGlobal, kNonlocal:
		kw := p.tok.kind
		p.next()
		var names []*Name
		for {
			n := p.expectName("after '" + kw.String() + "'")
			if n == nil {
				break
			}
			names = append(names, n)
			if !p.got(tComma) {
				break
			}
		}
		if kw == kGlobal {
			return &Global{Loc: p.span(start), Names: names}
		}
		return &Nonlocal{Loc: p.span(start), Names: names}
	case kDel:
		p.next()
		mark := len(p.exprs)
		for canStartExpr(p.tok.kind) && !p.stmtErr {
			x := p.bitOr()
			p.checkDelTarget(x)
			p.pushExpr(x)
			if !p.got(tComma) {
				break
			}
		}
		if len(p.exprs) == mark {
			p.errorExpected("expression after 'del'")
		}
		return &Delete{Loc: p.span(start), Targets: p.popExprs(mark)}
	case kAssert:
		p.next()
		s := &Assert{Test: p.expr()}
		if p.got(tComma) {
			s.Msg = p.expr()
		}
		s.Loc = p.span(start)
		return s
	case kImport:
		return p.importStmt()
	case kFrom:
		return p.importFrom()
	case tName:
		if p.isSoft("type") && p.peek(1) == tName && (p.peek(2) == tAssign || p.peek(2) == tLBrack) {
			return p.typeAlias()
		}
	}
	return p.exprStmt()
}

// exprStmt parses an expression statement or an assignment.
func (p *parser) exprStmt() Stmt {
	start := p.tok.pos
	x := p.rhs()
	switch k := p.tok.kind; {
	case k == tAssign:
		a := p.nodes.assigns.new()
		mark := len(p.exprs)
		for p.got(tAssign) {
			p.checkTarget(x, "assignment")
			p.pushExpr(x)
			x = p.rhs()
		}
		a.Targets = p.popExprs(mark)
		a.Value = x
		a.Loc = p.span(start)
		return a
	case k >= tPlusEq && k <= tCaretEq:
		switch x.(type) {
		case *Name, *Attribute, *Subscript, *BadExpr:
		default:
			p.errorAt(x.Span(), CodeInvalidTarget, "'%s' is an illegal expression for augmented assignment", describeExpr(x))
		}
		p.next()
		v := p.rhs()
		return &AugAssign{Loc: p.span(start), Target: x, Op: binOpStr[k-tPlusEq], Value: v}
	case k == tColon:
		switch x.(type) {
		case *Name, *Attribute, *Subscript, *BadExpr:
		case *Tuple:
			p.errorAt(x.Span(), CodeInvalidTarget, "only single target (not tuple) can be annotated")
		case *List:
			p.errorAt(x.Span(), CodeInvalidTarget, "only single target (not list) can be annotated")
		default:
			p.errorAt(x.Span(), CodeInvalidTarget, "illegal target for annotation")
		}
		p.next()
		s := &AnnAssign{Target: x, Annotation: p.expr()}
		if p.got(tAssign) {
			s.Value = p.rhs()
		}
		s.Loc = p.span(start)
		return s
	}
	if st, ok := x.(*Starred); ok {
		p.errorAt(st.Loc, CodeInvalidSyntax, "cannot use starred expression here")
	}
	s := p.nodes.exprStmts.new()
	s.X = x
	s.Loc = p.span(start)
	return s
}

// rhs parses the right-hand side of an assignment: a yield expression or star_expressions.
func (p *parser) rhs() Expr {
	if p.tok.kind == kYield {
		return p.yieldExpr()
	}
	return p.starExprs()
}

func (p *parser) checkDelTarget(x Expr) {
	switch x := x.(type) {
	case *Name, *Attribute, *Subscript, *BadExpr:
	case *Tuple:
		for _, e := range x.Elts {
			p.checkDelTarget(e)
		}
	case *List:
		for _, e := range x.Elts {
			p.checkDelTarget(e)
		}
	default:
		p.errorAt(x.Span(), CodeInvalidTarget, "cannot delete %s", describeExpr(x))
	}
}

// dottedName parses NAME ('.' NAME)* and returns its text without white space.
func (p *parser) dottedName(context string) (string, bool) {
	if p.tok.kind != tName {
		p.expectName(context)
		return "", false
	}
	first := p.tok
	p.next()
	compact := true
	for p.tok.kind == tDot && p.peek(1) == tName {
		if p.tok.pos != p.prevEnd || p.toks[p.i+1].pos != p.tok.end {
			compact = false
		}
		p.next()
		p.next()
	}
	if p.tok.kind == tDot {
		p.next()
		p.expectName("after '.'")
		return "", false
	}
	if compact {
		return p.str(first.pos, p.prevEnd), true
	}
	var b strings.Builder
	for k := first.pos; k < p.prevEnd; k++ {
		if c := p.src[k]; c != ' ' && c != '\t' && c != '\\' && c != '\n' && c != '\r' && c != '\f' {
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func (p *parser) importStmt() Stmt {
	start := p.tok.pos
	p.next() // import
	s := &Import{}
	for !p.stmtErr {
		aStart := p.tok.pos
		name, ok := p.dottedName("after 'import'")
		if !ok {
			break
		}
		a := &Alias{Name: name}
		if p.got(kAs) {
			a.AsName = p.expectName("after 'as'")
		}
		a.Loc = p.span(aStart)
		s.Names = append(s.Names, a)
		if !p.got(tComma) {
			break
		}
	}
	s.Loc = p.span(start)
	return s
}

func (p *parser) importFrom() Stmt {
	start := p.tok.pos
	p.next() // from
	s := &ImportFrom{}
	for {
		if p.got(tDot) {
			s.Level++
		} else if p.got(tEllipsis) {
			s.Level += 3
		} else {
			break
		}
	}
	if p.tok.kind != kImport || s.Level == 0 {
		s.Module, _ = p.dottedName("after 'from'")
	}
	if !p.expect(kImport, "after module name") {
		s.Loc = p.span(start)
		return s
	}
	if p.tok.kind == tStar {
		p.next()
		s.Names = []*Alias{{Loc: source.Span{Start: p.prevEnd - 1, End: p.prevEnd}, Name: "*"}}
		s.Loc = p.span(start)
		return s
	}
	open := p.i
	paren := p.got(tLParen)
	for !p.stmtErr {
		if paren && p.tok.kind == tRParen && len(s.Names) > 0 {
			break
		}
		aStart := p.tok.pos
		n := p.expectName("to import")
		if n == nil {
			break
		}
		a := &Alias{Name: n.Id}
		if p.got(kAs) {
			a.AsName = p.expectName("after 'as'")
		}
		a.Loc = p.span(aStart)
		s.Names = append(s.Names, a)
		if !p.got(tComma) {
			break
		}
		if !paren && p.tok.kind == tNewline {
			p.errorAt(source.Span{Start: p.prevEnd - 1, End: p.prevEnd}, CodeInvalidSyntax, "trailing comma not allowed without surrounding parentheses")
		}
	}
	if paren {
		p.closeBracket(open, tRParen, "import list")
	}
	s.Loc = p.span(start)
	return s
}

func (p *parser) typeAlias() Stmt {
	start := p.tok.pos
	p.next() // type
	s := &TypeAlias{Name: p.name()}
	if p.tok.kind == tLBrack {
		s.TypeParams = p.typeParams()
	}
	if p.expect(tAssign, "after type alias name") {
		s.Value = p.expr()
	} else {
		s.Value = p.badExpr("")
	}
	s.Loc = p.span(start)
	return s
}
