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

// TestCompletionWhileTyping: dispatch="… typed into a call (the string
// not closed yet, as a client without auto-closing quotes sends it) still
// gets the variants with the dispatcher's verdicts, before and after the
// edited version's analysis completes.
func TestCompletionWhileTyping(t *testing.T) {
	const src = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_s[:, :], A[:, :])
`
	c := newClient(t, fullCaps(), "") // reference 0.25, as every harness server
	u := uri.File("/w/typing.py")
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	i := strings.Index(src, "A[:, :])") + len("A[:, :]")
	m := NewMapper([]byte(src))
	at := m.Position(i)
	ins := `, dispatch="`
	c.change(u, 2, partial(at.Line, at.Character, at.Line, at.Character, ins))
	after := protocol.Position{Line: at.Line, Character: at.Character + uint32(len(ins))}
	check := func(when string) {
		got := renderAssist(t, c, u, "complete", after)
		if !strings.Contains(got, "gmem_smem [20] ✓ applies") || !strings.Contains(got, "ldstmatrix [20] ✗ unsupported memory scopes") {
			t.Errorf("%s: variants without verdicts:\n%s", when, got)
		}
	}
	check("before the analysis of the edit")
	c.waitDiags(u, 2)
	check("after the analysis of the edit")
}
