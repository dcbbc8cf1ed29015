// Package source holds positions, spans and files: the one coordinate system
// every other tilels package uses.
//
// Invariant: a Pos is a 0-based byte offset into the whole .py file, never
// into a kernel or a line. A Span is half-open: End is the first byte after
// the spanned text. Nothing is ever re-based.
//
// Line and column conversion for humans (CLI output) is 1-based with byte
// columns. Conversion to LSP positions (UTF-16) lives only in package lsp.
package source

import (
	"sort"
	"sync"
)

// Pos is a 0-based byte offset into a File's source.
type Pos int32

// NoPos marks an absent position.
const NoPos Pos = -1

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p >= 0 }

// Span is the half-open byte range [Start, End).
type Span struct{ Start, End Pos }

// NoSpan is the span of synthesized things with no source.
var NoSpan = Span{NoPos, NoPos}

// IsValid reports whether s refers to source text.
func (s Span) IsValid() bool { return s.Start >= 0 && s.End >= s.Start }

// Len is the number of bytes spanned (0 for an invalid span).
func (s Span) Len() int {
	if !s.IsValid() {
		return 0
	}
	return int(s.End - s.Start)
}

// Contains reports whether p lies in [Start, End).
func (s Span) Contains(p Pos) bool { return s.IsValid() && p >= s.Start && p < s.End }

// Join returns the smallest span covering both a and b; an invalid side is ignored.
func Join(a, b Span) Span {
	if !a.IsValid() {
		return b
	}
	if !b.IsValid() {
		return a
	}
	if b.Start < a.Start {
		a.Start = b.Start
	}
	if b.End > a.End {
		a.End = b.End
	}
	return a
}

// File is one source file. Its line table is built lazily on first use.
// A File is safe for concurrent use.
type File struct {
	Name string
	Src  []byte

	once  sync.Once
	lines []int32 // byte offset of the start of each line
}

// NewFile returns a File over src. The File does not copy src; callers must
// not modify it afterwards.
func NewFile(name string, src []byte) *File { return &File{Name: name, Src: src} }

func (f *File) lineTable() []int32 {
	f.once.Do(func() {
		lines := make([]int32, 1, len(f.Src)/32+1)
		for i, c := range f.Src {
			if c == '\n' {
				lines = append(lines, int32(i+1))
			}
		}
		f.lines = lines
	})
	return f.lines
}

// LineCount is the number of lines (a final line without newline counts).
func (f *File) LineCount() int { return len(f.lineTable()) }

// Position converts p into a 1-based line and 1-based byte column.
// Positions past the end clamp to the end of the file.
func (f *File) Position(p Pos) (line, col int) {
	if p < 0 {
		return 0, 0
	}
	if int(p) > len(f.Src) {
		p = Pos(len(f.Src))
	}
	lines := f.lineTable()
	i := sort.Search(len(lines), func(i int) bool { return lines[i] > int32(p) }) - 1
	return i + 1, int(int32(p)-lines[i]) + 1
}

// LineStart returns the offset of the first byte of 1-based line, or NoPos.
func (f *File) LineStart(line int) Pos {
	lines := f.lineTable()
	if line < 1 || line > len(lines) {
		return NoPos
	}
	return Pos(lines[line-1])
}

// Text returns the source text of s ("" for an invalid or out-of-range span).
func (f *File) Text(s Span) string {
	if !s.IsValid() || int(s.End) > len(f.Src) {
		return ""
	}
	return string(f.Src[s.Start:s.End])
}
