package lsp

import (
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func TestMapper(t *testing.T) {
	// "a𐐀b" from the LSP specification: 𐐀 is two UTF-16 code units.
	text := "x = 1\r\na\U00010400b é\rlast\n"
	m := NewMapper([]byte(text))
	for _, tc := range []struct {
		p   protocol.Position
		off int
	}{
		{pos(0, 0), 0},
		{pos(0, 5), 5},
		{pos(0, 99), 5},     // past the line end: the line end, before "\r\n"
		{pos(1, 0), 7},      // after "\r\n"
		{pos(1, 1), 8},      // before 𐐀
		{pos(1, 2), 8},      // inside the surrogate pair: the character's start
		{pos(1, 3), 12},     // b
		{pos(1, 5), 14},     // é (2 bytes, 1 unit)
		{pos(1, 6), 16},     // line end before the lone "\r"
		{pos(2, 0), 17},     // after the lone "\r"
		{pos(2, 4), 21},     // end of "last"
		{pos(3, 0), 22},     // the empty last line
		{pos(3, 7), 22},     // clamped
		{pos(9, 9), 22},     // past the last line: the end of the text
		{pos(1<<31, 0), 22}, // huge line numbers do not overflow
	} {
		if got := m.Offset(tc.p); got != tc.off {
			t.Errorf("Offset(%d:%d) = %d, want %d", tc.p.Line, tc.p.Character, got, tc.off)
		}
	}
	for _, tc := range []struct {
		off int
		p   protocol.Position
	}{
		{0, pos(0, 0)}, {5, pos(0, 5)}, {6, pos(0, 5)}, // inside "\r\n": the line end
		{7, pos(1, 0)}, {8, pos(1, 1)}, {10, pos(1, 1)}, // inside 𐐀: its start
		{12, pos(1, 3)}, {16, pos(1, 6)}, {17, pos(2, 0)}, {22, pos(3, 0)}, {99, pos(3, 0)}, {-1, pos(0, 0)},
	} {
		if got := m.Position(tc.off); got != tc.p {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", tc.off, got.Line, got.Character, tc.p.Line, tc.p.Character)
		}
	}
	if n := m.LineCount(); n != 4 {
		t.Errorf("LineCount = %d, want 4", n)
	}
}

// reference positions every byte offset the slow way: walk the runes,
// counting UTF-16 units and LSP line breaks.
func reference(text []byte) []protocol.Position {
	out := make([]protocol.Position, len(text)+1)
	line, col := uint32(0), uint32(0)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		brk := r == '\n' || r == '\r'
		if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			size = 2
		}
		for k := 0; k < size; k++ {
			out[i+k] = protocol.Position{Line: line, Character: col}
		}
		if brk {
			line++
			col = 0
		} else if r >= 0x10000 && size == 4 {
			col += 2
		} else {
			col++
		}
		i += size
	}
	out[len(text)] = protocol.Position{Line: line, Character: col}
	return out
}

func FuzzMapper(f *testing.F) {
	f.Add([]byte("x = 1\r\na\U00010400b é\rlast\n"), uint32(1), uint32(2))
	f.Add([]byte("\xff\xfe\r\r\n\n\U0001F600"), uint32(0), uint32(1))
	f.Add([]byte(""), uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, text []byte, line, char uint32) {
		m := NewMapper(text)
		ref := reference(text)
		for off := 0; off <= len(text); off++ {
			want := ref[off]
			if got := m.Position(off); got != want {
				t.Fatalf("Position(%d) = %v, want %v", off, got, want)
			}
		}
		// Offset is a left inverse of Position on the offsets it returns.
		o := m.Offset(protocol.Position{Line: line, Character: char})
		if o < 0 || o > len(text) {
			t.Fatalf("Offset out of range: %d", o)
		}
		if back := m.Offset(m.Position(o)); back != o {
			t.Fatalf("Offset(Position(%d)) = %d", o, back)
		}
	})
}

func TestApplyChanges(t *testing.T) {
	partial := func(l0, c0, l1, c1 uint32, text string) protocol.TextDocumentContentChangeEvent {
		return &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: pos(l0, c0), End: pos(l1, c1)}, Text: text}
	}
	for _, tc := range []struct {
		name, text string
		changes    []protocol.TextDocumentContentChangeEvent
		want       string
	}{
		{"insert", "ab\ncd", []protocol.TextDocumentContentChangeEvent{partial(1, 1, 1, 1, "X")}, "ab\ncXd"},
		{"sequence", "ab\ncd", []protocol.TextDocumentContentChangeEvent{partial(0, 0, 0, 1, ""), partial(0, 1, 1, 0, "")}, "bcd"},
		{"whole then partial", "zzz", []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "ab"}, partial(0, 2, 0, 2, "c")}, "abc"},
		{"past the end clamps", "ab\ncd", []protocol.TextDocumentContentChangeEvent{partial(7, 0, 9, 9, "!")}, "ab\ncd!"},
		{"reversed range", "abcd", []protocol.TextDocumentContentChangeEvent{partial(0, 3, 0, 1, "-")}, "a-d"},
		{"surrogates", "a\U00010400b", []protocol.TextDocumentContentChangeEvent{partial(0, 1, 0, 3, "")}, "ab"},
	} {
		got, err := applyChanges([]byte(tc.text), tc.changes)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func BenchmarkMapper(b *testing.B) {
	var text []byte
	for len(text) < 100_000 {
		text = append(text, "    Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32])  # é\n"...)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		m := NewMapper(text)
		off := m.Offset(m.Position(len(text) / 2))
		if off > len(text)/2 || off < len(text)/2-3 {
			b.Fatalf("round trip of %d gave %d", len(text)/2, off)
		}
	}
}
