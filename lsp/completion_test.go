package lsp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// renderAssist renders the completion list ("complete") or the signature
// help ("sig") at p for a scenario's golden section.
func renderAssist(t *testing.T, c *testClient, u uri.URI, what string, p protocol.Position) string {
	ctx := context.Background()
	doc := protocol.TextDocumentIdentifier{URI: u}
	var b strings.Builder
	if what == "sig" {
		h, err := c.server.SignatureHelp(ctx, &protocol.SignatureHelpParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: p}})
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			return "no signature help\n"
		}
		for _, s := range h.Signatures {
			fmt.Fprintf(&b, "%s\n", s.Label)
			for i, prm := range s.Parameters {
				lt, _ := prm.Label.(protocol.ParameterInformationLabelTuple)
				mark := " "
				if a, ok := h.ActiveParameter.Get(); ok && a == uint32(i) {
					mark = ">"
				}
				fmt.Fprintf(&b, "%s %s: %s\n", mark, s.Label[lt[0]:lt[1]], markupText(prm.Documentation))
			}
			fmt.Fprintf(&b, "doc:\n%s\n", markupText(s.Documentation))
		}
		return b.String()
	}
	res, err := c.server.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: p}})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := res.(*protocol.CompletionList)
	if l == nil {
		return "no completion\n"
	}
	for _, it := range l.Items {
		te, _ := it.TextEdit.(*protocol.TextEdit)
		detail, _ := it.Detail.Get()
		sort, _ := it.SortText.Get()
		pre := ""
		if v, _ := it.Preselect.Get(); v {
			pre = " (preselect)"
		}
		fmt.Fprintf(&b, "%s %s [%d] %s%s sort=%q\n", rangeString(&te.Range), it.Label, it.Kind, detail, pre, sort)
		if it.Kind == protocol.CompletionItemKindEnumMember || it.Kind == protocol.CompletionItemKindValue {
			fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(markupText(it.Documentation), "\n", "\n  "))
		}
	}
	return b.String()
}

func markupText(d protocol.InlayHintTooltip) string {
	switch d := d.(type) {
	case *protocol.MarkupContent:
		return d.Value
	case protocol.String:
		return string(d)
	}
	return ""
}
