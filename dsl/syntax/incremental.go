package syntax

import (
	"bytes"
	"sort"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// Incremental reparsing.
//
// A seam is a place where the parse of a file does not depend on the text
// before it: the start of the file, or a top-level statement whose first
// token starts a line (after a '\n'), right after a NEWLINE or DEDENT
// token. There the lexer is in its initial state (no bracket, string or
// block open, the indentation back at column 0), and the parser is in its
// statement loop with nothing pending, so the tokens and statements from a
// seam on depend only on the text from the seam on. The one exception is the look at the
// next line that closes brackets left open (lexer.checkUnclosed): a seam
// whose predecessor ends with such a bracket (Seam.UnclosedToNext) depends
// on its own first word.
//
// After an edit, ParseRegion re-parses from a seam before the edit up to
// the first seam after it at which the new parse is again at a seam of the
// old version (shifted by the edit's length): from there on the old tokens,
// statements and errors are still right, shifted. A keystroke in a
// 30,000-line file re-parses its own top-level statement instead of 1.2 MB
// (FuzzReparse checks that a region parse equals the whole-file parse).

// Seam is a place where an incremental reparse may start or stop, with
// what the syntax errors of the text up to the next seam need to be
// combined with their neighbours'.
type Seam struct {
	Pos source.Pos
	// Errs is the number of syntax errors the lexer and parser collected
	// from Pos to the next seam, before they were filtered to one per line
	// and none inside an unclosed bracket; ErrAtPos reports one at Pos.
	Errs     int32
	ErrAtPos bool
	// UnclosedToNext reports that a bracket opened before the next seam
	// was closed by the lexer at the next seam: an error there is not
	// reported, and that seam's first word decided where it closed.
	UnclosedToNext bool
}

// RegionStart returns the index of the seam, among the seams of a parse of
// src, from which ParseRegion re-parses after an edit that starts at p: the
// last seam before p at which the statements before it can tell no
// difference. The statements before a seam look at its first token only
// to see whether it continues them (else, elif, except, finally, def or
// class after a decorator), which a change inside the first word could
// decide, and the lexer looks at its first word when a bracket closes
// there (Seam.UnclosedToNext); an error at the seam may also be theirs
// (Seam.ErrAtPos). Index 0 is the start of the file.
func RegionStart(seams []Seam, src []byte, p source.Pos) int {
	k := sort.Search(len(seams), func(i int) bool { return seams[i].Pos >= p }) - 1
	for k > 0 && (seams[k-1].UnclosedToNext || seams[k].ErrAtPos || p <= wordEnd(src, seams[k].Pos)) {
		k--
	}
	return max(k, 0)
}

// CanStop reports whether a region of the next version may end at s, a
// seam of this one: not when an error is at s, which the statements
// before it may have reported.
func (s Seam) CanStop() bool { return !s.ErrAtPos }

// wordEnd returns the end of the identifier-like word at p (p when none).
func wordEnd(src []byte, p source.Pos) source.Pos {
	for int(p) < len(src) {
		c := src[p]
		if c != '_' && !isASCIILetter(c) && !isDigit(c) && c < 0x80 {
			break
		}
		p++
	}
	return p
}

// atSeam reports whether the current token, in the file's own statement
// loop, starts a seam.
func (p *parser) atSeam() bool {
	if p.i > 0 {
		if k := p.toks[p.i-1].kind; k != tNewline && k != tDedent {
			return false
		}
	}
	// After a lone '\r' the lexer starts a line but the line table (and
	// so the one-error-per-line rule) does not.
	pos := p.tok.pos
	return pos == 0 || p.src[pos-1] == '\n'
}

// atStop reports whether a region parse stops at the current token.
func (p *parser) atStop() bool {
	for p.candAt < len(p.cands) && p.cands[p.candAt] < p.i {
		p.candAt++
	}
	return p.candAt < len(p.cands) && p.cands[p.candAt] == p.i
}

// seamInfo builds the seams of the text [start, end) from the seam
// positions met (start is one whether met or not) and the collected errors
// and unclosed-bracket ranges; errors outside [start, end) are ignored.
func seamInfo(start source.Pos, positions []source.Pos, end source.Pos, errs []diag.Diagnostic, unclosed []source.Span) []Seam {
	seams := make([]Seam, 0, len(positions)+1)
	seams = append(seams, Seam{Pos: start})
	for _, pos := range positions {
		if pos > seams[len(seams)-1].Pos {
			seams = append(seams, Seam{Pos: pos})
		}
	}
	at := func(pos source.Pos) int {
		return sort.Search(len(seams), func(i int) bool { return seams[i].Pos > pos }) - 1
	}
	for _, d := range errs {
		if d.Span.Start < start || d.Span.Start >= end {
			continue
		}
		k := at(d.Span.Start)
		seams[k].Errs++
		if seams[k].Pos == d.Span.Start {
			seams[k].ErrAtPos = true
		}
	}
	for _, r := range unclosed {
		if r.Start < start || r.Start >= end {
			continue
		}
		k := at(r.Start)
		next := end
		if k+1 < len(seams) {
			next = seams[k+1].Pos
		}
		if r.End == next {
			seams[k].UnclosedToNext = true
		}
	}
	return seams
}

// Region is a run of top-level statements parsed by ParseRegion.
type Region struct {
	// Start and End delimit the region: Start the seam it was parsed
	// from, End the seam it stopped at (or the end of the file).
	Start, End source.Pos
	Body       []Stmt
	// Seams are the region's seams, the first at Start. The last one's
	// UnclosedToNext is about End.
	Seams []Seam
	// Diags are the region's syntax errors, sorted, filtered as Parse
	// filters them (one per line, none inside an unclosed bracket) but
	// not capped.
	Diags []diag.Diagnostic

	src  []byte
	toks []token // the region's tokens, then the first token at End
}

// ParseRegion parses the top-level statements of f from the seam from up
// to the first seam q >= min for which stop(q) reports true, or to the end
// of the file (stop may be nil). from must be a seam of a whole-file parse
// of f (the caller knows it from an earlier version whose text before from
// is the same, see Seam); the region is then exactly what Parse gives for
// those statements, and the rest of the file parses as if the region were
// not there.
//
// ok is false when the parse of the region reports an error at End or
// after (a message that names the token at End belongs to the text after
// the region), or when it collected so many errors that Parse would have
// dropped some.
func ParseRegion(f *source.File, from, min source.Pos, stop func(source.Pos) bool) (r *Region, ok bool) {
	src := f.Src
	var lexErrs errorList
	lx := newLexer(src, "", &lexErrs, nil)
	lx.region = true
	lx.i = int(from)
	if from == 0 {
		lx.i = bomLen(src)
	}
	lx.stop, lx.stopMin = stop, int(max(min, from+1)) // a region is never empty
	// A region usually ends at the first candidate; a statement that goes
	// on past it (an `else:` at column 0, say) needs the next one. After a
	// few, lex to the end of the file.
	for attempt := 0; ; attempt++ {
		if attempt == 3 {
			lx.stop = nil
		}
		lx.run()
		toks := lx.toks
		if !lx.done {
			// Paused at the end of a candidate's line: what the parser
			// may look at ends here.
			toks = append(toks[:len(toks):len(toks)], token{kind: tEOF, pos: source.Pos(lx.i), end: source.Pos(lx.i)})
		}
		p := &parser{file: f, src: src, text: string(src[from:lx.i]), base: from, toks: toks, tok: toks[0], cands: lx.cands}
		p.errs.list = append([]diag.Diagnostic(nil), lexErrs.list...)
		p.errs.unclosed = lexErrs.unclosed
		n0 := len(p.errs.list)
		body := p.parseFile()
		if !p.stopped && !lx.done {
			continue // ran into the pause
		}
		if len(p.errs.list) >= maxCollectedErrors {
			return nil, false
		}
		end, endTok := source.Pos(len(src)), len(toks)-1
		if p.stopped {
			end, endTok = p.tok.pos, p.i
		}
		for _, d := range p.errs.list[n0:] {
			if d.Span.Start >= end {
				return nil, false
			}
		}
		r := &Region{Start: from, End: end, Body: body, src: src, toks: toks[:endTok+1]}
		var errs []diag.Diagnostic
		for _, d := range p.errs.list {
			if d.Span.Start < end {
				errs = append(errs, d)
			}
		}
		r.Seams = seamInfo(from, p.seams, end, errs, lexErrs.unclosed)
		r.Diags = filterErrors(src, errs, &p.errs)
		return r, true
	}
}

// filterErrors sorts errs and filters them as errorList.finish does (one
// per line, none inside an unclosed bracket of e), without the cap, and
// without the file's line table: two errors share a line when no '\n'
// lies between them.
func filterErrors(src []byte, errs []diag.Diagnostic, e *errorList) []diag.Diagnostic {
	if len(errs) == 0 {
		return nil
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Span.Start < errs[j].Span.Start })
	var out []diag.Diagnostic
	last := source.Pos(-1)
	for _, d := range errs {
		if e.inUnclosed(d) {
			continue
		}
		if last >= 0 && bytes.IndexByte(src[last:d.Span.Start], '\n') < 0 {
			continue
		}
		last = d.Span.Start
		out = append(out, d)
	}
	return out
}

// SameTokens reports whether a and b, regions of two versions of a file,
// have the same tokens: the same kinds and, but for NEWLINE, INDENT and
// DEDENT, the same text (positions may differ).
func SameTokens(a, b *Region) bool {
	if len(a.toks) != len(b.toks) {
		return false
	}
	for i, x := range a.toks {
		y := b.toks[i]
		if x.kind != y.kind || x.flags != y.flags {
			return false
		}
		switch x.kind {
		case tNewline, tIndent, tDedent, tEOF:
			continue
		}
		if !bytes.Equal(a.src[x.pos:x.end], b.src[y.pos:y.end]) {
			return false
		}
	}
	return true
}

// BetweenLines reports whether the text [from, to) of the region lies
// between two logical lines: after the last token of one (in its trailing
// comment, its line break, or the blank and comment lines after it) and
// before the first token of the next, not after a bracket the lexer had
// to close (the expression the parser ends at that NEWLINE spans the text
// before it). Such text is in no expression's source text, and a simple
// statement's span does not cover it.
func (r *Region) BetweenLines(from, to source.Pos) bool {
	nl := r.Start == 0 // a NEWLINE since the last token before from (none at the start)
	closed := false    // one the lexer made to close brackets
	for _, t := range r.toks {
		switch t.kind {
		case tNewline:
			nl = true
			closed = closed || t.flags&tfErr != 0
			continue
		case tIndent, tDedent:
			continue
		}
		switch {
		case t.kind != tEOF && t.end <= from:
			nl, closed = false, false
		case t.pos >= to:
			return nl && !closed
		default:
			return false // the text touches this token
		}
	}
	return false
}

// NewlineAt reports whether a NEWLINE token of the region is at p: the
// parser anchors a missing expression there (an empty BadExpr at the end
// of a broken line), so a span may end at p on either side of text
// inserted at p.
func (r *Region) NewlineAt(p source.Pos) bool {
	for _, t := range r.toks {
		if t.kind == tNewline && t.pos == p {
			return true
		}
	}
	return false
}
