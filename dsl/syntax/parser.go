package syntax

import (
	"sync"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// Parse parses f. It never fails: the returned *File is never nil, and every
// syntax error becomes a diagnostic plus Bad* nodes (see the package doc).
func Parse(f *source.File) (*File, []diag.Diagnostic) {
	p := &parser{file: f, src: f.Src, text: string(f.Src)}
	bufp := tokenPool.Get().(*[]token)
	if want := len(p.src)/4 + 16; cap(*bufp) < want {
		// Kernel code has about one token per 4 to 5 bytes; sizing the
		// slice once avoids regrowing it (and copying) during lexing.
		*bufp = make([]token, 0, want)
	}
	lx := newLexer(p.src, p.text, &p.errs, *bufp)
	lx.i = bomLen(p.src)
	lx.run()
	p.toks = lx.toks
	p.tok = p.toks[0]
	body := p.parseFile()
	file := &File{Src: f, Body: body, Comments: lx.comments}
	if len(p.errs.list) < maxCollectedErrors {
		file.Seams = seamInfo(0, p.seams, source.Pos(len(p.src)), p.errs.list, p.errs.unclosed)
	}
	*bufp = lx.toks[:0]
	if cap(*bufp) <= maxPooledTokens {
		tokenPool.Put(bufp)
	}
	return file, p.errs.finish(f)
}

// bomLen is the length of a UTF-8 byte order mark at the start of src (the
// lexer skips it).
func bomLen(src []byte) int {
	if len(src) >= 3 && string(src[:3]) == "\ufeff" {
		return 3
	}
	return 0
}

// The token slice is only needed during one parse; reuse it.
var tokenPool = sync.Pool{New: func() any { s := make([]token, 0, 1024); return &s }}

const maxPooledTokens = 1 << 20

// parser is a recursive-descent parser over the lexer's tokens.
//
// Spans: each parse function notes start := p.tok.pos on entry and ends its
// node at p.prevEnd, the end of the last consumed token, so a node's span
// includes any parentheses written around its operands (as CPython does).
//
// Errors: the first error of a statement is reported and sets stmtErr; later
// errors in the same statement are dropped, and list loops stop. The
// statement loop then skips to the end of the logical line.
type parser struct {
	file *source.File
	src  []byte
	text string     // the source from base on (all of it but in ParseRegion)
	base source.Pos // see text
	toks []token
	i    int   // index of tok in toks
	tok  token // current token

	prevEnd source.Pos // end of the last consumed token
	stmtErr bool       // an error was reported in the current statement
	errs    errorList
	depth   int // recursion depth, bounded by maxDepth

	exprs []Expr     // scratch stack for building expression lists
	stmts []Stmt     // scratch stack for building statement lists
	kws   []*Keyword // scratch stack for building keyword lists
	nodes alloc

	// Seams and regions (incremental.go): level counts the blockStmts
	// calls in progress (1 in the file's own statement loop); seams are
	// the seam positions met there; a region parse stops there at the
	// first token whose index is in cands (stopped).
	level   int
	seams   []source.Pos
	cands   []int
	candAt  int
	stopped bool
}

// str returns the source text [a, b).
func (p *parser) str(a, b source.Pos) string { return p.text[a-p.base : b-p.base] }

// maxDepth bounds expression and block nesting so that hostile input cannot
// overflow the stack; CPython's own limit is lower.
const maxDepth = 1000

func (p *parser) next() {
	if k := p.tok.kind; k != tNewline && k != tIndent && k != tDedent {
		// Layout tokens do not extend spans: a block ends at its last token.
		p.prevEnd = p.tok.end
	}
	if p.i+1 < len(p.toks) {
		p.i++
		p.tok = p.toks[p.i]
	}
}

// peek returns the kind of the token k positions ahead.
func (p *parser) peek(k int) tokKind {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k].kind
	}
	return tEOF
}

// got consumes the current token if it has kind k.
func (p *parser) got(k tokKind) bool {
	if p.tok.kind == k {
		p.next()
		return true
	}
	return false
}

// expect consumes a token of kind k, or reports "expected 'k' <context>".
func (p *parser) expect(k tokKind, context string) bool {
	if p.tok.kind == k {
		p.next()
		return true
	}
	if context == "" {
		p.errorExpected("'" + k.String() + "'")
	} else {
		p.errorExpected("'" + k.String() + "' " + context)
	}
	return false
}

// span returns the span from start to the end of the last consumed token.
func (p *parser) span(start source.Pos) source.Span {
	end := p.prevEnd
	if end < start {
		end = start
	}
	return source.Span{Start: start, End: end}
}

// tokSpan is the span used to report an error at the current token.
func (p *parser) tokSpan() source.Span {
	t := p.tok
	if t.kind == tDedent || t.kind == tIndent {
		// Point at the first token of the line instead of its white space.
		return source.Span{Start: t.end, End: t.end}
	}
	return source.Span{Start: t.pos, End: t.end}
}

// errorAt reports a syntax error unless one was already reported in the
// current statement.
func (p *parser) errorAt(span source.Span, code, format string, args ...any) {
	if p.stmtErr {
		return
	}
	p.stmtErr = true
	p.errs.add(span, code, format, args...)
}

// errorTok reports an error at the current token. A token at which the
// lexer already reported an error gets no second one.
func (p *parser) errorTok(code, format string, args ...any) {
	if p.tok.flags&tfErr != 0 {
		p.stmtErr = true
		return
	}
	p.errorAt(p.tokSpan(), code, format, args...)
}

// errorExpected reports "expected <what>" at the current token.
func (p *parser) errorExpected(what string) {
	p.errorTok(CodeUnexpectedToken, "expected %s", what)
}

// errorUnexpected reports the current token as unexpected.
func (p *parser) errorUnexpected(context string) {
	desc := p.describe(p.tok)
	if context != "" {
		desc += " " + context
	}
	code := CodeUnexpectedToken
	if p.tok.kind == tIndent {
		code = CodeBadIndent
	}
	p.errorTok(code, "unexpected %s", desc)
}

// describe names a token for an error message.
func (p *parser) describe(t token) string {
	switch t.kind {
	case tName:
		return "name '" + p.str(t.pos, t.end) + "'"
	case tInt, tFloat, tImag:
		if t.end-t.pos <= 20 {
			return "number " + p.str(t.pos, t.end)
		}
		return "number"
	case tString, tFStart:
		return "string"
	case tEOF, tNewline, tIndent, tDedent, tFMiddle, tFEnd:
		return t.kind.String()
	case tError:
		return "character"
	}
	if t.kind.isKeyword() {
		return "keyword '" + t.kind.String() + "'"
	}
	return "'" + t.kind.String() + "'"
}

// badExpr returns a zero-width BadExpr at the current token, which it does
// not consume, after reporting an error there.
func (p *parser) badExpr(context string) *BadExpr {
	if p.tok.kind == tNewline || p.tok.kind == tEOF || p.tok.kind == tDedent || p.tok.kind == tIndent {
		p.errorTok(CodeUnexpectedToken, "expected expression%s", context)
	} else {
		p.errorUnexpected(context)
	}
	// The BadExpr sits at the unexpected token, and spans of enclosing nodes
	// extend to it, so that it lies inside them.
	pos := p.tok.pos
	if pos < p.prevEnd {
		pos = p.prevEnd
	}
	p.prevEnd = pos
	return &BadExpr{From: pos, To: pos}
}

// enter and leave bound recursion depth. When too deep, enter reports an
// error and returns false; the caller must then not recurse.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxDepth {
		p.errorTok(CodeInvalidSyntax, "too many nested expressions or blocks")
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// name makes a Name from the current token (which must be tName) and consumes it.
func (p *parser) name() *Name {
	n := p.nodes.name()
	n.Loc = source.Span{Start: p.tok.pos, End: p.tok.end}
	n.Id = p.str(p.tok.pos, p.tok.end)
	p.next()
	return n
}

// expectName parses a NAME or reports an error and returns nil.
func (p *parser) expectName(context string) *Name {
	if p.tok.kind == tName {
		return p.name()
	}
	if p.tok.kind.isKeyword() {
		p.errorTok(CodeUnexpectedToken, "expected name %s, found keyword '%s'", context, p.tok.kind)
	} else {
		p.errorExpected("name " + context)
	}
	return nil
}

// isSoft reports whether the current token is the soft keyword kw.
func (p *parser) isSoft(kw string) bool {
	return p.tok.kind == tName && p.tok.end-p.tok.pos == source.Pos(len(kw)) && p.str(p.tok.pos, p.tok.end) == kw
}

func (p *parser) pushExpr(x Expr) { p.exprs = append(p.exprs, x) }

// popExprs returns the expressions pushed since mark as a new slice (nil
// when none) and pops them.
func (p *parser) popExprs(mark int) []Expr {
	n := len(p.exprs) - mark
	if n == 0 {
		return nil
	}
	out := p.nodes.exprSlice(n)
	copy(out, p.exprs[mark:])
	clear(p.exprs[mark:])
	p.exprs = p.exprs[:mark]
	return out
}

func (p *parser) popKeywords(mark int) []*Keyword {
	n := len(p.kws) - mark
	if n == 0 {
		return nil
	}
	out := make([]*Keyword, n)
	copy(out, p.kws[mark:])
	clear(p.kws[mark:])
	p.kws = p.kws[:mark]
	return out
}

func (p *parser) popStmts(mark int) []Stmt {
	n := len(p.stmts) - mark
	if n == 0 {
		return nil
	}
	out := p.nodes.stmtSlice(n)
	copy(out, p.stmts[mark:])
	clear(p.stmts[mark:])
	p.stmts = p.stmts[:mark]
	return out
}
