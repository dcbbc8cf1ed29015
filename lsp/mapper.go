package lsp

import (
	"bytes"
	"sort"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/dsl/source"
)

// Mapper converts between byte offsets into one immutable text and LSP
// positions (0-based line, 0-based column in UTF-16 code units). It is the
// only place in tilels that knows about UTF-16.
//
// Lines end at "\n", "\r\n" or a lone "\r", as the LSP specification says.
// A column past the end of its line means the end of the line (before the
// line break), a line past the last means the end of the text, and a
// column inside a surrogate pair means the start of that character. An
// invalid UTF-8 byte counts as one code unit (the U+FFFD an editor shows),
// so every byte offset has a position and mapping never fails.
//
// A Mapper is safe for concurrent use; its line table is built on first use.
type Mapper struct {
	text  []byte
	once  sync.Once
	lines []int32 // offset of the first byte of each line
}

// NewMapper returns a mapper over text, which must not change afterwards.
func NewMapper(text []byte) *Mapper { return &Mapper{text: text} }

func (m *Mapper) table() []int32 {
	m.once.Do(func() {
		t := m.text
		lines := make([]int32, 1, len(t)/40+2)
		if bytes.IndexByte(t, '\r') < 0 {
			// Fast path: "\n" line breaks only (measured: the general loop
			// below is about 4x slower on a 100 KB file).
			for off := 0; ; {
				i := bytes.IndexByte(t[off:], '\n')
				if i < 0 {
					break
				}
				off += i + 1
				lines = append(lines, int32(off))
			}
		} else {
			for i := 0; i < len(t); i++ {
				switch t[i] {
				case '\n':
					lines = append(lines, int32(i+1))
				case '\r':
					if i+1 < len(t) && t[i+1] == '\n' {
						i++
					}
					lines = append(lines, int32(i+1))
				}
			}
		}
		m.lines = lines
	})
	return m.lines
}

// LineCount is the number of lines (a text ending in a line break has an
// empty last line).
func (m *Mapper) LineCount() int { return len(m.table()) }

// lineEnd returns the offset of the end of line i's content (before its
// line break).
func (m *Mapper) lineEnd(i int) int {
	lines := m.table()
	if i+1 >= len(lines) {
		return len(m.text)
	}
	end := int(lines[i+1])
	if end > 0 && m.text[end-1] == '\n' {
		end--
	}
	if end > int(lines[i]) && m.text[end-1] == '\r' {
		end--
	}
	return end
}

// Offset converts an LSP position to a byte offset, clamping as described
// on Mapper.
func (m *Mapper) Offset(p protocol.Position) int {
	lines := m.table()
	if int64(p.Line) >= int64(len(lines)) {
		return len(m.text)
	}
	start, end := int(lines[p.Line]), m.lineEnd(int(p.Line))
	want := int(p.Character)
	units := 0
	for i := start; i < end; {
		if units >= want {
			return i
		}
		c := m.text[i]
		if c < utf8.RuneSelf {
			i++
			units++
			continue
		}
		r, size := utf8.DecodeRune(m.text[i:end])
		n := 1
		if r >= 0x10000 && size == 4 {
			n = 2
		}
		if units+n > want {
			return i // inside a surrogate pair: the character's start
		}
		units += n
		i += size
	}
	return end
}

// Position converts a byte offset to an LSP position. Offsets past the end
// clamp to the end; an offset inside a character or a "\r\n" pair maps to
// the character's start or the line's end.
func (m *Mapper) Position(off int) protocol.Position {
	if off < 0 {
		off = 0
	}
	if off > len(m.text) {
		off = len(m.text)
	}
	lines := m.table()
	line := sort.Search(len(lines), func(i int) bool { return int(lines[i]) > off }) - 1
	start := int(lines[line])
	end := m.lineEnd(line)
	if off > end {
		off = end
	}
	units := 0
	for i := start; i < off; {
		c := m.text[i]
		if c < utf8.RuneSelf {
			i++
			units++
			continue
		}
		r, size := utf8.DecodeRune(m.text[i:end])
		if i+size > off {
			break // off is inside this character
		}
		if r >= 0x10000 && size == 4 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

// Range converts a span to an LSP range.
func (m *Mapper) Range(s source.Span) protocol.Range {
	if !s.IsValid() {
		return protocol.Range{}
	}
	return protocol.Range{Start: m.Position(int(s.Start)), End: m.Position(int(s.End))}
}

// Span converts an LSP range to a span (start and end ordered).
func (m *Mapper) Span(r protocol.Range) source.Span {
	a, b := m.Offset(r.Start), m.Offset(r.End)
	if b < a {
		a, b = b, a
	}
	return source.Span{Start: source.Pos(a), End: source.Pos(b)}
}
