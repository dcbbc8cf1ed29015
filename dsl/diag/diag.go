// Package diag defines diagnostics: what tilels tells a user about their
// program. Diagnostics are values; they know nothing of LSP or JSON.
//
// Rules for messages: one lowercase fragment, no final period, concrete
// numbers. The primary Span is the smallest thing to edit; other places go in
// Related. Code is a stable kebab-case string grouped by producer
// ("syntax/unexpected-token", "dispatch/fallback-only"), documented in
// docs/diagnostics.md.
package diag

import (
	"fmt"
	"sort"

	"github.com/tilels/tilels/dsl/source"
)

// Severity orders diagnostics from most to least severe.
type Severity int

const (
	Error Severity = iota + 1
	Warning
	Information
	Hint
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Information:
		return "information"
	case Hint:
		return "hint"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Related is a secondary place that explains a diagnostic.
type Related struct {
	Span    source.Span
	Message string
}

// Diagnostic is one message about a span of the file.
type Diagnostic struct {
	Span     source.Span
	Severity Severity
	Code     string
	Message  string
	Related  []Related
}

// Errorf builds an error diagnostic.
func Errorf(span source.Span, code, format string, args ...any) Diagnostic {
	return Diagnostic{Span: span, Severity: Error, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Warningf builds a warning diagnostic.
func Warningf(span source.Span, code, format string, args ...any) Diagnostic {
	return Diagnostic{Span: span, Severity: Warning, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Infof builds an information diagnostic.
func Infof(span source.Span, code, format string, args ...any) Diagnostic {
	return Diagnostic{Span: span, Severity: Information, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Sort orders diagnostics by position, then severity, then code and message,
// so output is deterministic.
func Sort(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Span.Start != b.Span.Start {
			return a.Span.Start < b.Span.Start
		}
		if a.Severity != b.Severity {
			return a.Severity < b.Severity
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}

// Format renders d as "file:line:col: severity[code]: message" (1-based, byte columns).
func Format(f *source.File, d Diagnostic) string {
	line, col := f.Position(d.Span.Start)
	return fmt.Sprintf("%s:%d:%d: %s[%s]: %s", f.Name, line, col, d.Severity, d.Code, d.Message)
}
