package syntax

import (
	"unicode"
	"unicode/utf8"

	"github.com/tilels/tilels/dsl/source"
)

// lexer turns source bytes into the token slice the parser reads. It runs to
// completion before parsing starts, so the parser gets unlimited lookahead.
//
// Besides ordinary tokens it emits NEWLINE at the end of each logical line,
// INDENT/DEDENT around blocks, and PEP 701 f-string tokens: tFStart, then
// tFMiddle texts and replacement fields ("{" expr ["="] ["!" name]
// [":" spec] "}", where spec is again tFMiddle texts and fields), then tFEnd.
type lexer struct {
	src  []byte
	text string // string(src): token strings are substrings of it
	i    int
	toks []token
	errs *errorList

	indents  []indent  // open indentation levels, innermost last; [0] is column 0
	brackets []bracket // open brackets, innermost last
	fs       []fsFrame // open f-strings and replacement fields, innermost last

	atLineStart bool // the next token starts a logical line (compute indentation)
	comments    []Comment

	// Region lexing (ParseRegion). A region lexer has no text and keeps
	// no comments. stop, when set, is asked about every column-0 line
	// start outside brackets at or after stopMin; a yes records the index
	// of its first token in cands, and the lexer pauses (run returns) at
	// the end of that logical line. done is set at the end of the file.
	region  bool
	stop    func(source.Pos) bool
	stopMin int
	cands   []int
	pause   bool
	done    bool
}

type indent struct{ col, alt int } // column with tab size 8 and with tab size 1

type bracket struct {
	c   byte // '(', '[' or '{'
	pos source.Pos
	tok int // index of the opening token in toks
}

// fsFrame is an open f-string (field false) or an open replacement field.
type fsFrame struct {
	field  bool
	spec   bool // field: inside the format spec
	raw    bool // string: r prefix
	triple bool // string: triple quoted
	quote  byte // string: quote character
	depth  int  // field: len(brackets) before its "{" was pushed
	str    int  // field: index of the enclosing string frame
	start  source.Pos
}

func newLexer(src []byte, text string, errs *errorList, toks []token) *lexer {
	return &lexer{src: src, text: text, errs: errs, toks: toks[:0], indents: []indent{{}}, atLineStart: true}
}

func (lx *lexer) emit(kind tokKind, pos, end int) {
	lx.toks = append(lx.toks, token{kind: kind, pos: source.Pos(pos), end: source.Pos(end)})
}

func (lx *lexer) emitErr(kind tokKind, pos, end int) {
	lx.toks = append(lx.toks, token{kind: kind, flags: tfErr, pos: source.Pos(pos), end: source.Pos(end)})
}

func (lx *lexer) errorf(pos, end int, code, format string, args ...any) {
	lx.errs.add(source.Span{Start: source.Pos(pos), End: source.Pos(end)}, code, format, args...)
}

// run lexes the whole source.
func (lx *lexer) run() {
	src := lx.src
	n := len(src)
	for {
		if lx.pause && lx.atLineStart {
			lx.pause = false
			return
		}
		if len(lx.fs) > 0 {
			if fr := &lx.fs[len(lx.fs)-1]; !fr.field || fr.spec {
				lx.lexFStringText()
				continue
			}
		}
		if lx.atLineStart && len(lx.brackets) == 0 {
			if !lx.lexIndent() {
				lx.finish()
				return
			}
		}
		// Skip white space, comments and line continuations.
		i := lx.i
		for i < n {
			c := src[i]
			if c == ' ' || c == '\t' || c == '\f' {
				i++
			} else if c == '#' {
				i = lx.comment(i)
			} else if c == '\\' {
				j := i + 1
				if j < n && src[j] == '\r' {
					j++
					if j < n && src[j] == '\n' {
						j++
					}
					i = j
					continue
				}
				if j < n && src[j] == '\n' {
					i = j + 1
					continue
				}
				if j >= n {
					lx.errorf(i, i+1, CodeUnexpectedToken, "unexpected end of file after line continuation")
					i = n
					break
				}
				lx.errorf(i, i+1, CodeBadCharacter, "unexpected character after line continuation")
				lx.emitErr(tError, i, i+1)
				i++
			} else {
				break
			}
		}
		lx.i = i
		if i >= n {
			lx.finish()
			return
		}
		c := src[i]
		switch {
		case c == '\n' || c == '\r':
			j := i + 1
			if c == '\r' && j < n && src[j] == '\n' {
				j++
			}
			lx.i = j
			if len(lx.brackets) > 0 {
				lx.checkUnclosed(i)
				continue
			}
			lx.emit(tNewline, i, j)
			lx.atLineStart = true
		case isASCIILetter(c) || c == '_':
			lx.lexNameOrString()
		case c >= '0' && c <= '9':
			lx.lexNumber()
		case c == '.' && i+1 < n && src[i+1] >= '0' && src[i+1] <= '9':
			lx.lexNumber()
		case c == '"' || c == '\'':
			if lx.quoteEndsFString(i) {
				continue
			}
			lx.lexString(i, i, false, false, false)
		case c < utf8.RuneSelf:
			lx.lexOperator()
		default:
			r, size := utf8.DecodeRune(src[i:])
			if isIdentStart(r) {
				lx.lexNameOrString()
				continue
			}
			if r == utf8.RuneError && size <= 1 {
				lx.errorf(i, i+1, CodeBadCharacter, "invalid utf-8 byte 0x%02x", src[i])
			} else {
				lx.errorf(i, i+size, CodeBadCharacter, "invalid character %q (U+%04X)", r, r)
			}
			lx.emitErr(tError, i, i+size)
			lx.i = i + size
		}
	}
}

// finish ends the token stream at EOF: closes open f-strings and brackets,
// ends the last line and closes open blocks.
func (lx *lexer) finish() {
	n := len(lx.src)
	flags := uint8(0)
	if len(lx.fs) > 0 {
		lx.unterminatedFString(n)
		flags = tfErr
	}
	if len(lx.brackets) > 0 {
		lx.unclosed()
		flags = tfErr
	}
	if k := len(lx.toks); k > 0 && lx.toks[k-1].kind != tNewline || flags != 0 {
		lx.toks = append(lx.toks, token{kind: tNewline, flags: flags, pos: source.Pos(n), end: source.Pos(n)})
	}
	for len(lx.indents) > 1 {
		lx.indents = lx.indents[:len(lx.indents)-1]
		lx.emit(tDedent, n, n)
	}
	lx.emit(tEOF, n, n)
	lx.done = true
}

// comment records the comment starting at i and returns the offset of the
// line break (or EOF) that ends it.
func (lx *lexer) comment(i int) int {
	src := lx.src
	j := i
	for j < len(src) && src[j] != '\n' && src[j] != '\r' {
		j++
	}
	if !lx.region {
		lx.comments = append(lx.comments, Comment{
			Span: source.Span{Start: source.Pos(i), End: source.Pos(j)},
			Text: lx.text[i:j],
		})
	}
	return j
}

// lexIndent handles the start of a line outside brackets: it skips blank and
// comment-only lines, then emits INDENT or DEDENTs. It reports false at EOF.
func (lx *lexer) lexIndent() bool {
	src := lx.src
	n := len(src)
	for {
		ls := lx.i
		i := ls
		col, alt := 0, 0
		for i < n {
			switch src[i] {
			case ' ':
				col++
				alt++
			case '\t':
				col = (col/8 + 1) * 8
				alt++
			case '\f':
				col, alt = 0, 0
			default:
				goto measured
			}
			i++
		}
	measured:
		if i >= n {
			lx.i = i
			return false
		}
		switch src[i] {
		case '#':
			i = lx.comment(i)
			fallthrough
		case '\n', '\r':
			if i < n && src[i] == '\r' {
				i++
			}
			if i < n && src[i] == '\n' {
				i++
			}
			lx.i = i
			if i >= n {
				return false
			}
			continue
		}
		lx.i = i
		lx.atLineStart = false
		lx.indentTo(ls, i, col, alt)
		if lx.stop != nil && i == ls && i >= lx.stopMin && lx.stop(source.Pos(i)) {
			lx.cands = append(lx.cands, len(lx.toks))
			lx.pause = true
		}
		return true
	}
}

// indentTo emits INDENT or DEDENTs for a line whose first token is at pos
// with the given columns.
func (lx *lexer) indentTo(lineStart, pos, col, alt int) {
	top := lx.indents[len(lx.indents)-1]
	switch {
	case col == top.col:
		if alt != top.alt {
			lx.errorf(pos, pos+1, CodeInconsistentTabs, "inconsistent use of tabs and spaces in indentation")
		}
	case col > top.col:
		if alt <= top.alt {
			lx.errorf(pos, pos+1, CodeInconsistentTabs, "inconsistent use of tabs and spaces in indentation")
		}
		lx.indents = append(lx.indents, indent{col, alt})
		lx.emit(tIndent, lineStart, pos)
	default:
		for len(lx.indents) > 1 && lx.indents[len(lx.indents)-1].col > col {
			lx.indents = lx.indents[:len(lx.indents)-1]
			lx.emit(tDedent, pos, pos)
		}
		top = lx.indents[len(lx.indents)-1]
		if top.col != col {
			lx.errorf(pos, pos+1, CodeBadIndent, "unindent does not match any outer indentation level")
			lx.toks[len(lx.toks)-1].flags |= tfErr
		} else if top.alt != alt {
			lx.errorf(pos, pos+1, CodeInconsistentTabs, "inconsistent use of tabs and spaces in indentation")
		}
	}
}

// checkUnclosed is called after a line break inside brackets. If the next
// line starts with a word that no expression can contain (return, pass,
// while, ...), or at column 0 with def, class, @name, import, from or async,
// the brackets were surely left open by mistake: report the innermost one,
// close them all and end the logical line, so that one typo does not
// swallow the rest of the file.
func (lx *lexer) checkUnclosed(nl int) {
	src := lx.src
	i := lx.i
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i >= len(src) {
		return
	}
	col0 := i == lx.i
	ok := false
	switch c := src[i]; {
	case c == '@':
		ok = col0 && i+1 < len(src) && (isASCIILetter(src[i+1]) || src[i+1] == '_')
	case c >= 'a' && c <= 'w':
		j := i
		for j < len(src) && src[j] >= 'a' && src[j] <= 'z' {
			j++
		}
		if j < len(src) && (isDigit(src[j]) || src[j] == '_' || isASCIILetter(src[j]) || src[j] >= utf8.RuneSelf) {
			return
		}
		switch string(src[i:j]) {
		case "def", "class", "return", "pass", "break", "continue", "raise", "import", "global",
			"nonlocal", "assert", "del", "while", "with", "try", "except", "finally", "elif":
			ok = true
		case "from", "async":
			ok = col0
		}
	}
	if !ok {
		return
	}
	lx.unclosed()
	lx.fs = lx.fs[:0]
	lx.emitErr(tNewline, nl, nl)
	lx.atLineStart = true
}

// unclosed reports the innermost open bracket as never closed, marks its
// token so that the parser does not report it again, and forgets all open
// brackets.
func (lx *lexer) unclosed() {
	b := lx.brackets[len(lx.brackets)-1]
	lx.errs.unclosed = append(lx.errs.unclosed, source.Span{Start: b.pos, End: source.Pos(lx.i)})
	lx.errorf(int(b.pos), int(b.pos)+1, CodeUnclosedBracket, "'%c' was never closed", b.c)
	lx.toks[b.tok].flags |= tfErr
	lx.brackets = lx.brackets[:0]
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isIdentContinue(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// lexNameOrString lexes an identifier, a keyword, or a prefixed string.
func (lx *lexer) lexNameOrString() {
	src := lx.src
	n := len(src)
	start := lx.i
	i := start
	// ASCII fast path: identifiers are almost always ASCII, and this loop
	// avoids a utf8.DecodeRune and Unicode table lookups per byte.
	for i < n {
		c := src[i]
		if isASCIILetter(c) || isDigit(c) || c == '_' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeRune(src[i:])
		if !isIdentContinue(r) {
			break
		}
		i += size
	}
	if i < n && (src[i] == '"' || src[i] == '\'') && i-start <= 2 {
		if raw, bytes, f, ok := stringPrefix(src[start:i]); ok {
			lx.lexString(start, i, raw, bytes, f)
			return
		}
	}
	lx.i = i
	lx.emit(keyword(src[start:i]), start, i)
}

// stringPrefix parses a string prefix (any case): r, u, b, f, br, rb, fr, rf.
func stringPrefix(p []byte) (raw, bytes, f, ok bool) {
	for _, c := range p {
		switch c | 0x20 {
		case 'r':
			if raw {
				return
			}
			raw = true
		case 'b':
			if bytes {
				return
			}
			bytes = true
		case 'f':
			if f {
				return
			}
			f = true
		case 'u':
			if len(p) != 1 {
				return
			}
		default:
			return
		}
	}
	if bytes && f {
		return
	}
	return raw, bytes, f, true
}

// lexString lexes a string literal whose prefix starts at start and whose
// opening quote is at q.
func (lx *lexer) lexString(start, q int, raw, bytes, f bool) {
	src := lx.src
	n := len(src)
	quote := src[q]
	triple := q+2 < n && src[q+1] == quote && src[q+2] == quote
	i := q + 1
	if triple {
		i = q + 3
	}
	if f {
		lx.emit(tFStart, start, i)
		lx.fs = append(lx.fs, fsFrame{raw: raw, triple: triple, quote: quote, start: source.Pos(start)})
		lx.i = i
		return
	}
	for i < n {
		c := src[i]
		switch {
		case c == '\\':
			i += 2
			if i <= n && src[i-1] == '\r' && i < n && src[i] == '\n' {
				i++
			}
			continue
		case c == quote:
			if !triple {
				lx.i = i + 1
				lx.emit(tString, start, i+1)
				return
			}
			if i+2 < n && src[i+1] == quote && src[i+2] == quote {
				lx.i = i + 3
				lx.emit(tString, start, i+3)
				return
			}
		case (c == '\n' || c == '\r') && !triple:
			lx.errorf(start, q+1, CodeUnterminatedString, "unterminated string literal")
			lx.i = i
			lx.emitErr(tString, start, i)
			return
		}
		i++
	}
	if i > n {
		i = n
	}
	if triple {
		lx.errorf(start, q+3, CodeUnterminatedString, "unterminated triple-quoted string literal")
	} else {
		lx.errorf(start, q+1, CodeUnterminatedString, "unterminated string literal")
	}
	lx.i = n
	lx.emitErr(tString, start, n)
}

// lexFStringText lexes literal text of the innermost f-string, or of the
// format spec of the innermost replacement field, up to the next field, the
// end of the spec, or the closing quote.
func (lx *lexer) lexFStringText() {
	src := lx.src
	n := len(src)
	top := len(lx.fs) - 1
	fr := lx.fs[top]
	str := fr
	if fr.field {
		str = lx.fs[fr.str]
	}
	start := lx.i
	i := start
	middle := func() {
		if i > start {
			lx.emit(tFMiddle, start, i)
		}
	}
	for i < n {
		c := src[i]
		switch {
		case c == str.quote && (!str.triple || i+2 < n && src[i+1] == c && src[i+2] == c):
			middle()
			if fr.field {
				// The string ends inside a format spec.
				lx.errorf(i, i+1, CodeBadString, "f-string: expecting '}'")
				lx.emitErr(tRBrace, i, i)
				lx.popField()
				lx.i = i
				return
			}
			end := i + 1
			if str.triple {
				end = i + 3
			}
			lx.emit(tFEnd, i, end)
			lx.fs = lx.fs[:top]
			lx.i = end
			return
		case c == '\\':
			if str.raw {
				if i+1 < n && (src[i+1] == str.quote || src[i+1] == '\\') {
					i++
				}
				i++
				continue
			}
			if i+2 < n && src[i+1] == 'N' && src[i+2] == '{' {
				j := i + 3
				for j < n && src[j] != '}' && src[j] != str.quote && src[j] != '\n' {
					j++
				}
				if j < n && src[j] == '}' {
					i = j + 1
					continue
				}
			}
			if i+1 < n && (src[i+1] == '{' || src[i+1] == '}') {
				i++
				continue
			}
			i += 2
			continue
		case c == '{':
			if !fr.field && i+1 < n && src[i+1] == '{' {
				i += 2
				continue
			}
			middle()
			lx.emit(tLBrace, i, i+1)
			strIdx := top
			if fr.field {
				strIdx = fr.str
			}
			lx.fs = append(lx.fs, fsFrame{field: true, depth: len(lx.brackets), str: strIdx, start: source.Pos(i)})
			lx.brackets = append(lx.brackets, bracket{'{', source.Pos(i), len(lx.toks) - 1})
			lx.i = i + 1
			return
		case c == '}':
			if fr.field {
				middle()
				lx.emit(tRBrace, i, i+1)
				lx.popField()
				lx.i = i + 1
				return
			}
			if i+1 < n && src[i+1] == '}' {
				i += 2
				continue
			}
			lx.errorf(i, i+1, CodeBadString, "f-string: single '}' is not allowed")
			i++
			continue
		case (c == '\n' || c == '\r') && !str.triple:
			middle()
			lx.unterminatedFString(i)
			return
		}
		i++
	}
	if i > n {
		i = n
	}
	middle()
	lx.unterminatedFString(i)
}

// quoteEndsFString handles a quote at i inside a replacement field of a
// single-quoted f-string. A quote like the f-string's own that does not
// close a string on the same line most likely ends the f-string, as in
// f"{x": it reports the missing "}", closes the open fields, and returns true.
func (lx *lexer) quoteEndsFString(i int) bool {
	if len(lx.fs) == 0 {
		return false
	}
	fr := lx.fs[len(lx.fs)-1]
	if !fr.field || fr.spec {
		return false
	}
	str := lx.fs[fr.str]
	src := lx.src
	if str.triple || src[i] != str.quote {
		return false
	}
	for j := i + 1; j < len(src) && src[j] != '\n' && src[j] != '\r'; j++ {
		if src[j] == '\\' {
			j++
		} else if src[j] == str.quote {
			return false
		}
	}
	lx.errorf(i, i+1, CodeBadString, "f-string: expecting '}'")
	for len(lx.fs)-1 > fr.str {
		lx.emitErr(tRBrace, i, i)
		lx.popField()
	}
	lx.i = i
	return true
}

// popField pops the innermost replacement field and its bracket.
func (lx *lexer) popField() {
	fr := lx.fs[len(lx.fs)-1]
	lx.fs = lx.fs[:len(lx.fs)-1]
	if len(lx.brackets) > fr.depth {
		lx.brackets = lx.brackets[:fr.depth]
	}
}

// unterminatedFString reports the outermost open f-string, closes every open
// f-string and field, and leaves the lexer at i.
func (lx *lexer) unterminatedFString(i int) {
	outer := lx.fs[0]
	lx.errorf(int(outer.start), int(outer.start)+1, CodeUnterminatedString, "unterminated f-string literal")
	for k := len(lx.fs) - 1; k >= 0; k-- {
		if lx.fs[k].field {
			lx.emitErr(tRBrace, i, i)
			if len(lx.brackets) > lx.fs[k].depth {
				lx.brackets = lx.brackets[:lx.fs[k].depth]
			}
		} else {
			lx.emitErr(tFEnd, i, i)
		}
	}
	lx.fs = lx.fs[:0]
	lx.i = i
}

// lexNumber lexes a numeric literal starting at lx.i.
func (lx *lexer) lexNumber() {
	src := lx.src
	n := len(src)
	start := lx.i
	i := start
	kind := tInt
	bad := false
	digits := func(ok func(byte) bool) {
		// Digits with single underscores between them.
		first := true
		for i < n {
			c := src[i]
			if ok(c) {
				i++
				first = false
				continue
			}
			if c == '_' && !first && i+1 < n && ok(src[i+1]) {
				i++
				continue
			}
			if c == '_' {
				bad = true
				i++
				continue
			}
			break
		}
	}
	if src[i] == '0' && i+1 < n && (src[i+1]|0x20 == 'x' || src[i+1]|0x20 == 'o' || src[i+1]|0x20 == 'b') {
		base := src[i+1] | 0x20
		i += 2
		if i < n && src[i] == '_' {
			i++
		}
		d0 := i
		switch base {
		case 'x':
			digits(func(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' })
		case 'o':
			digits(func(c byte) bool { return c >= '0' && c <= '7' })
		default:
			digits(func(c byte) bool { return c == '0' || c == '1' })
		}
		if i == d0 || i < n && isDigit(src[i]) {
			bad = true
		}
	} else {
		if src[i] != '.' {
			digits(isDigit)
			if src[start] == '0' && !bad {
				for k := start; k < i; k++ {
					if src[k] != '0' && src[k] != '_' {
						// 0123 is only valid as the start of a float.
						if i >= n || (src[i] != '.' && src[i]|0x20 != 'e' && src[i]|0x20 != 'j') {
							lx.errorf(start, i, CodeBadNumber, "leading zeros in decimal integer literals are not permitted")
							lx.i = i
							lx.emitErr(tInt, start, i)
							return
						}
						break
					}
				}
			}
		}
		if i < n && src[i] == '.' {
			kind = tFloat
			i++
			if i < n && isDigit(src[i]) {
				digits(isDigit)
			}
		}
		if i < n && src[i]|0x20 == 'e' {
			j := i + 1
			if j < n && (src[j] == '+' || src[j] == '-') {
				j++
			}
			if j < n && isDigit(src[j]) {
				kind = tFloat
				i = j
				digits(isDigit)
			}
		}
		if i < n && src[i]|0x20 == 'j' {
			kind = tImag
			i++
		}
	}
	lx.i = i
	if bad {
		lx.errorf(start, i, CodeBadNumber, "invalid number literal")
		lx.emitErr(kind, start, i)
		return
	}
	lx.emit(kind, start, i)
}

// lexOperator lexes punctuation at lx.i (an ASCII byte).
func (lx *lexer) lexOperator() {
	src := lx.src
	n := len(src)
	i := lx.i
	c := src[i]
	var c1, c2 byte
	if i+1 < n {
		c1 = src[i+1]
	}
	if i+2 < n {
		c2 = src[i+2]
	}
	kind, size := tError, 1
	switch c {
	case '(':
		kind = tLParen
	case ')':
		kind = tRParen
	case '[':
		kind = tLBrack
	case ']':
		kind = tRBrack
	case '{':
		kind = tLBrace
	case '}':
		kind = tRBrace
	case ',':
		kind = tComma
	case ';':
		kind = tSemi
	case '~':
		kind = tTilde
	case ':':
		kind = tColon
		if c1 == '=' && !lx.atFieldDepth() {
			kind, size = tWalrus, 2
		}
	case '.':
		kind = tDot
		if c1 == '.' && c2 == '.' {
			kind, size = tEllipsis, 3
		}
	case '=':
		kind = tAssign
		if c1 == '=' {
			kind, size = tEq, 2
		}
	case '!':
		kind = tBang
		if c1 == '=' {
			kind, size = tNe, 2
		}
	case '-':
		kind = tMinus
		if c1 == '>' {
			kind, size = tArrow, 2
		} else if c1 == '=' {
			kind, size = tMinusEq, 2
		}
	case '+':
		kind, size = opOrAug(tPlus, c1)
	case '%':
		kind, size = opOrAug(tPercent, c1)
	case '@':
		kind, size = opOrAug(tAt, c1)
	case '&':
		kind, size = opOrAug(tAmp, c1)
	case '|':
		kind, size = opOrAug(tPipe, c1)
	case '^':
		kind, size = opOrAug(tCaret, c1)
	case '*':
		if c1 == '*' {
			kind, size = opOrAug(tDStar, c2)
			size++
		} else {
			kind, size = opOrAug(tStar, c1)
		}
	case '/':
		if c1 == '/' {
			kind, size = opOrAug(tDSlash, c2)
			size++
		} else {
			kind, size = opOrAug(tSlash, c1)
		}
	case '<':
		switch c1 {
		case '<':
			kind, size = opOrAug(tShl, c2)
			size++
		case '=':
			kind, size = tLe, 2
		default:
			kind = tLt
		}
	case '>':
		switch c1 {
		case '>':
			kind, size = opOrAug(tShr, c2)
			size++
		case '=':
			kind, size = tGe, 2
		default:
			kind = tGt
		}
	}
	lx.i = i + size
	switch kind {
	case tError:
		if c == 0 {
			lx.errorf(i, i+1, CodeBadCharacter, "source code cannot contain null bytes")
		} else if c < ' ' || c == 0x7f {
			lx.errorf(i, i+1, CodeBadCharacter, "invalid non-printable character U+%04X", c)
		} else {
			lx.errorf(i, i+1, CodeBadCharacter, "invalid character '%c'", c)
		}
		lx.emitErr(tError, i, i+1)
		return
	case tLParen, tLBrack, tLBrace:
		lx.brackets = append(lx.brackets, bracket{c, source.Pos(i), len(lx.toks)})
	case tRParen, tRBrack, tRBrace:
		if len(lx.fs) > 0 {
			if fr := lx.fs[len(lx.fs)-1]; fr.field && len(lx.brackets) == fr.depth+1 {
				if kind == tRBrace {
					lx.emit(tRBrace, i, i+1)
					lx.popField()
					return
				}
				break // a mismatched closer must not close the field
			}
		}
		if k := len(lx.brackets); k > 0 && lx.brackets[k-1].c == openerOf(c) {
			lx.brackets = lx.brackets[:k-1]
		}
	case tColon:
		if lx.atFieldDepth() {
			lx.fs[len(lx.fs)-1].spec = true
		}
	}
	lx.emit(kind, i, i+size)
}

// atFieldDepth reports whether the lexer is inside a replacement field's
// expression and outside any bracket opened within it.
func (lx *lexer) atFieldDepth() bool {
	if len(lx.fs) == 0 {
		return false
	}
	fr := lx.fs[len(lx.fs)-1]
	return fr.field && !fr.spec && len(lx.brackets) == fr.depth+1
}

func openerOf(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

// opOrAug returns op, or its augmented-assignment form when next is '='.
func opOrAug(op tokKind, next byte) (tokKind, int) {
	if next == '=' {
		return op + (tPlusEq - tPlus), 2
	}
	return op, 1
}
