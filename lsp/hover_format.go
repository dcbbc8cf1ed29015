package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/lower"
)

func validHoverFormat(s string) bool {
	return s == "" || s == "auto" || s == "markdown" || s == "plaintext"
}

// plainHover reports whether hovers go out as plain text: the
// hoverFormat setting "plaintext", or "auto" (the default) and a client
// whose textDocument.hover.contentFormat does not list markdown.
func (s *Server) plainHover() bool {
	switch s.settings().HoverFormat {
	case "plaintext":
		return true
	case "markdown":
		return false
	}
	c := s.caps.Load()
	return c == nil || !c.markdownHover
}

// hoverContents is a hover's Markdown md as the client gets it: as is,
// or rendered as plain text (lower.PlainText: tables as aligned columns,
// no emphasis or code marks, code blocks indented).
func (s *Server) hoverContents(md string) *protocol.MarkupContent {
	if s.plainHover() {
		return &protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: lower.PlainText(md)}
	}
	return &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}
}
