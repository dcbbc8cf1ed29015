package syntax

import (
	"strings"
	"unicode/utf8"

	"github.com/tilels/tilels/dsl/source"
)

// strings parses one or more adjacent string literals (implicit
// concatenation). The result is a *Constant, or a *JoinedStr when any part
// is an f-string.
func (p *parser) strings() Expr {
	start := p.tok.pos
	if p.tok.kind == tString && p.peek(1) != tString && p.peek(1) != tFStart {
		// Fast path: one plain literal.
		t := p.tok
		p.next()
		s, isBytes := p.decodeStringToken(t)
		c := p.nodes.consts.new()
		c.Loc = source.Span{Start: t.pos, End: t.end}
		c.Kind = String
		if isBytes {
			c.Kind = Bytes
		}
		c.Value = p.str(t.pos, t.end)
		c.Str = s
		return c
	}
	var acc litAcc
	mark := len(p.exprs)
	sawBytes, sawStr, sawF := false, false, false
	for p.tok.kind == tString || p.tok.kind == tFStart {
		t := p.tok
		if t.kind == tString {
			s, isBytes := p.decodeStringToken(t)
			if isBytes {
				sawBytes = true
			} else {
				sawStr = true
			}
			acc.add(source.Span{Start: t.pos, End: t.end}, s)
			p.next()
			continue
		}
		sawF, sawStr = true, true
		raw := false
		for _, c := range p.src[t.pos:t.end] {
			if c|0x20 == 'r' {
				raw = true
			}
		}
		p.next()
		p.fstringBody(&acc, mark, raw)
		if p.tok.kind == tFEnd {
			p.next()
		} else if !p.stmtErr {
			p.errorExpected("end of f-string")
			break
		} else {
			break
		}
	}
	span := p.span(start)
	if sawBytes && sawStr {
		p.errorAt(span, CodeBadString, "cannot mix bytes and nonbytes literals")
	}
	if !sawF {
		c := p.nodes.consts.new()
		c.Loc = span
		c.Kind = String
		if sawBytes && !sawStr {
			c.Kind = Bytes
		}
		c.Value = p.str(span.Start, span.End)
		c.Str = acc.text()
		return c
	}
	p.flushLit(&acc)
	return &JoinedStr{Loc: span, Parts: p.popExprs(mark)}
}

// litAcc accumulates adjacent literal text of a string concatenation or
// f-string. One segment is kept as a substring, without copying.
type litAcc struct {
	start, end source.Pos
	n          int
	s          string
	buf        []byte
}

func (a *litAcc) add(span source.Span, s string) {
	switch a.n {
	case 0:
		a.start, a.s = span.Start, s
	case 1:
		a.buf = append(append(a.buf[:0], a.s...), s...)
	default:
		a.buf = append(a.buf, s...)
	}
	a.end = span.End
	a.n++
}

func (a *litAcc) text() string {
	if a.n <= 1 {
		return a.s
	}
	return string(a.buf)
}

// flushLit turns the accumulated text into a Constant part (if not empty).
func (p *parser) flushLit(a *litAcc) {
	if a.n == 0 {
		return
	}
	if s := a.text(); s != "" {
		c := p.nodes.consts.new()
		c.Loc = source.Span{Start: a.start, End: a.end}
		c.Kind = String
		c.Value = p.str(a.start, a.end)
		c.Str = s
		p.pushExpr(c)
	}
	a.n = 0
	a.s = ""
}

// fstringBody parses the parts of an f-string after its tFStart, up to
// its tFEnd (not consumed). Parts are pushed on p.exprs above mark.
func (p *parser) fstringBody(acc *litAcc, mark int, raw bool) {
	for {
		switch p.tok.kind {
		case tFMiddle:
			t := p.tok
			acc.add(source.Span{Start: t.pos, End: t.end}, p.decode(t.pos, t.end, raw, false, true))
			p.next()
		case tLBrace:
			fv, debug := p.fstringField(raw)
			if debug.End > debug.Start {
				acc.add(debug, p.str(debug.Start, debug.End))
			}
			p.flushLit(acc)
			p.pushExpr(fv)
		default:
			return
		}
	}
}

// fstringField parses a replacement field "{" expr ["="] ["!" conv] [":" spec] "}".
// For a "=" specifier it also returns the span of the debug text.
func (p *parser) fstringField(raw bool) (*FormattedValue, source.Span) {
	start, open := p.tok.pos, p.i
	p.next() // {
	var debug source.Span
	if !p.enter() {
		return &FormattedValue{Loc: p.span(start), Value: p.badExpr("")}, debug
	}
	defer p.leave()
	fv := &FormattedValue{}
	switch p.tok.kind {
	case kYield:
		fv.Value = p.yieldExpr()
	case tRBrace:
		p.errorTok(CodeBadString, "f-string: valid expression required before '}'")
		fv.Value = p.badExpr("")
	default:
		fv.Value = p.starExprs()
	}
	if p.tok.kind == tAssign {
		p.next()
		fv.Debug = true
		debug = source.Span{Start: start + 1, End: p.prevEnd}
		if k := p.tok.kind; (k == tBang || k == tColon || k == tRBrace) && p.tok.flags&tfErr == 0 {
			debug.End = p.tok.pos // the white space after "=" is part of the text
		}
	}
	if p.tok.kind == tBang {
		p.next()
		t := p.tok
		if t.kind == tName && t.pos == p.prevEnd && t.end-t.pos == 1 && strings.IndexByte("rsa", p.src[t.pos]) >= 0 {
			fv.Conversion = p.src[t.pos]
			p.next()
		} else {
			p.errorTok(CodeBadString, "f-string: invalid conversion character, expected 's', 'r', or 'a'")
		}
	}
	if p.tok.kind == tColon {
		p.next()
		specStart := p.prevEnd
		mark := len(p.exprs)
		var acc litAcc
		p.fstringBody(&acc, mark, raw)
		p.flushLit(&acc)
		fv.FormatSpec = &JoinedStr{Loc: source.Span{Start: specStart, End: max(specStart, p.prevEnd)}, Parts: p.popExprs(mark)}
	}
	if fv.Debug && fv.Conversion == 0 && fv.FormatSpec == nil {
		fv.Conversion = 'r'
	}
	if p.stmtErr {
		p.skipToFieldEnd()
	}
	p.closeBracket(open, tRBrace, "f-string replacement field")
	fv.Loc = p.span(start)
	return fv, debug
}

// skipToFieldEnd skips, after an error, to the "}" closing the current
// replacement field. The lexer always emits balanced field braces and
// f-string ends, even for broken input.
func (p *parser) skipToFieldEnd() {
	depth := 0
	for {
		switch p.tok.kind {
		case tLBrace, tFStart:
			depth++
		case tRBrace, tFEnd:
			if depth == 0 {
				return
			}
			depth--
		case tNewline, tEOF:
			return
		}
		p.next()
	}
}

// decodeStringToken decodes a complete (or unterminated) string token.
func (p *parser) decodeStringToken(t token) (s string, isBytes bool) {
	src := p.src
	i := t.pos
	raw := false
	for src[i] != '"' && src[i] != '\'' {
		switch src[i] | 0x20 {
		case 'r':
			raw = true
		case 'b':
			isBytes = true
		}
		i++
	}
	q := src[i]
	qlen := source.Pos(1)
	if i+2 < t.end && src[i+1] == q && src[i+2] == q {
		qlen = 3
	}
	bodyStart, bodyEnd := i+qlen, t.end
	if t.flags&tfErr == 0 {
		bodyEnd -= qlen
	}
	if bodyEnd < bodyStart {
		bodyEnd = bodyStart
	}
	return p.decode(bodyStart, bodyEnd, raw, isBytes, false), isBytes
}

// decode returns the value of the literal text src[a:b]: escapes processed
// unless raw, and for f-string text doubled braces collapsed. Text needing no
// change is returned as a substring of the source, without copying.
func (p *parser) decode(a, b source.Pos, raw, isBytes, fstr bool) string {
	s := p.str(a, b)
	k := 0
	for ; k < len(s); k++ {
		c := s[k]
		if c == '\\' && !raw || fstr && (c == '{' || c == '}') {
			break
		}
	}
	if k == len(s) {
		return s
	}
	buf := make([]byte, 0, len(s))
	buf = append(buf, s[:k]...)
	for i := k; i < len(s); {
		c := s[i]
		if fstr && (c == '{' || c == '}') {
			buf = append(buf, c)
			i++
			if i < len(s) && s[i] == c {
				i++
			}
			continue
		}
		if c != '\\' || raw || i+1 >= len(s) {
			buf = append(buf, c)
			i++
			continue
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\n':
		case '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
		case '\\', '\'', '"':
			buf = append(buf, e)
		case 'a':
			buf = append(buf, 7)
		case 'b':
			buf = append(buf, 8)
		case 'f':
			buf = append(buf, 12)
		case 'n':
			buf = append(buf, 10)
		case 'r':
			buf = append(buf, 13)
		case 't':
			buf = append(buf, 9)
		case 'v':
			buf = append(buf, 11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := rune(e - '0')
			for n := 1; n < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7'; n++ {
				v = v*8 + rune(s[i]-'0')
				i++
			}
			buf = appendCode(buf, v, isBytes)
		case 'x':
			buf, i = p.hexEscape(buf, s, i, 2, isBytes, e)
		case 'u', 'U':
			if isBytes {
				buf = append(buf, '\\', e)
				break
			}
			n := 4
			if e == 'U' {
				n = 8
			}
			buf, i = p.hexEscape(buf, s, i, n, false, e)
		case 'N':
			// Named escapes need the Unicode name table, which Go's
			// standard library lacks: keep \N{...} undecoded.
			buf = append(buf, '\\', e)
		default:
			buf = append(buf, '\\', e)
		}
	}
	return string(buf)
}

// hexEscape decodes n hex digits of a \x, \u or \U escape at s[i:]. A
// truncated escape is kept as written.
func (p *parser) hexEscape(buf []byte, s string, i, n int, isBytes bool, e byte) ([]byte, int) {
	if i+n > len(s) {
		return append(buf, '\\', e), i
	}
	var v rune
	for _, c := range []byte(s[i : i+n]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			d = c | 0x20 - 'a' + 10
		default:
			return append(buf, '\\', e), i
		}
		v = v*16 + rune(d)
	}
	return appendCode(buf, v, isBytes), i + n
}

// appendCode appends a code point: one byte for bytes literals, UTF-8 for str.
func appendCode(buf []byte, v rune, isBytes bool) []byte {
	if isBytes {
		return append(buf, byte(v))
	}
	if v > utf8.MaxRune {
		v = utf8.RuneError
	}
	return utf8.AppendRune(buf, v)
}
