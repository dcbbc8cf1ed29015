package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"
)

// applyChanges applies didChange content changes, in order, to text and
// returns the new text (text itself is not modified). Ranges are mapped
// with Mapper, so positions past the end of a line or of the text clamp
// (LSP: "If the character value is greater than the line length it
// defaults back to the line length"), and a reversed range is reordered.
func applyChanges(text []byte, changes []protocol.TextDocumentContentChangeEvent) ([]byte, error) {
	for i, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = []byte(c.Text)
		case *protocol.TextDocumentContentChangePartial:
			sp := NewMapper(text).Span(c.Range)
			out := make([]byte, 0, len(text)-sp.Len()+len(c.Text))
			out = append(out, text[:sp.Start]...)
			out = append(out, c.Text...)
			out = append(out, text[sp.End:]...)
			text = out
		default:
			return nil, fmt.Errorf("content change %d: unknown kind %T", i, c)
		}
	}
	return text, nil
}
