package syntax

import (
	"fmt"
	"sort"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// Diagnostic codes reported by Parse.
const (
	CodeUnexpectedToken    = "syntax/unexpected-token"    // the parser met a token the grammar does not allow
	CodeUnterminatedString = "syntax/unterminated-string" // a string or f-string without its closing quote
	CodeUnclosedBracket    = "syntax/unclosed-bracket"    // an opening bracket never closed
	CodeBadIndent          = "syntax/bad-indent"          // unexpected indent, missing block, unindent mismatch
	CodeInconsistentTabs   = "syntax/inconsistent-tabs"   // indentation ambiguous between tabs and spaces
	CodeBadCharacter       = "syntax/bad-character"       // a character that cannot start a token
	CodeBadNumber          = "syntax/bad-number"          // a malformed numeric literal
	CodeBadString          = "syntax/bad-string"          // a malformed string (mixing bytes and str, bad f-string)
	CodeInvalidTarget      = "syntax/invalid-target"      // assignment, deletion or loop target that cannot be assigned
	CodeInvalidSyntax      = "syntax/invalid-syntax"      // a construct the grammar forbids (e.g. a misplaced star)
)

const (
	maxErrors          = 50            // diagnostics reported at most
	maxCollectedErrors = 4 * maxErrors // errors collected before filtering (unclosed brackets excepted)
)

// errorList collects syntax errors in any order. Finish sorts them, keeps
// the first one of each line and caps the number at maxErrors.
type errorList struct {
	list     []diag.Diagnostic
	unclosed []source.Span // from an unclosed bracket to where the lexer closed it
}

func (e *errorList) add(span source.Span, code, format string, args ...any) {
	if len(e.list) >= maxCollectedErrors && code != CodeUnclosedBracket {
		// Unclosed brackets are always kept: finish drops the errors
		// inside them in their favour.
		return
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	e.list = append(e.list, diag.Diagnostic{Span: span, Severity: diag.Error, Code: code, Message: msg})
}

func (e *errorList) inUnclosed(d diag.Diagnostic) bool {
	if d.Code == CodeUnclosedBracket {
		return false
	}
	for _, r := range e.unclosed {
		if d.Span.Start > r.Start && d.Span.Start <= r.End {
			return true
		}
	}
	return false
}

func (e *errorList) finish(f *source.File) []diag.Diagnostic {
	if len(e.list) == 0 {
		return nil
	}
	sort.SliceStable(e.list, func(i, j int) bool { return e.list[i].Span.Start < e.list[j].Span.Start })
	out := e.list[:0]
	lastLine := -1
	for _, d := range e.list {
		if e.inUnclosed(d) {
			// The unclosed bracket explains it: "f(a,\n:" is one mistake.
			continue
		}
		line, _ := f.Position(d.Span.Start)
		if line == lastLine {
			continue
		}
		lastLine = line
		out = append(out, d)
		if len(out) == maxErrors {
			break
		}
	}
	return out
}
