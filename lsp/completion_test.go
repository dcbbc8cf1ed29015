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

// resolvingCaps are fullCaps with a client that resolves completion
// items' documentation (as VS Code does).
func resolvingCaps() protocol.ClientCapabilities {
	caps := fullCaps()
	caps.TextDocument.Completion = &protocol.CompletionClientCapabilities{
		CompletionItem: &protocol.ClientCompletionItemOptions{
			ResolveSupport: protocol.ClientCompletionItemResolveOptions{Properties: []string{"documentation", "detail"}},
		},
	}
	return caps
}

// TestCompletionResolve: a client that resolves gets the namespace lists
// without documentation, and completionItem/resolve adds it; the
// dispatch= variants (they depend on the call) keep theirs.
func TestCompletionResolve(t *testing.T) {
	const src = "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n\n\n@T.prim_func\ndef k(A_ptr: T.handle):\n    A = T.match_buffer(A_ptr, (32,), \"float32\")\n    T.device_entry()\n    T.thread_id([32])\n    Tx.fill(A[:], 0.0, dispatch=\"\")\n"
	c := newClient(t, resolvingCaps(), "")
	u := uri.File("/w/resolve.py")
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	ctx := context.Background()
	doc := protocol.TextDocumentIdentifier{URI: u}
	m := NewMapper([]byte(src))
	complete := func(after string) []protocol.CompletionItem {
		p := m.Position(strings.Index(src, after) + len(after))
		res, err := c.server.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: p}})
		if err != nil {
			t.Fatal(err)
		}
		l, _ := res.(*protocol.CompletionList)
		if l == nil {
			t.Fatalf("no completion after %q", after)
		}
		return l.Items
	}
	var fill *protocol.CompletionItem
	for i, it := range complete("    Tx.") {
		if it.Documentation != nil {
			t.Errorf("%s: documentation sent with the list", it.Label)
		}
		if it.Label == "fill" {
			fill = &complete("    Tx.")[i]
		}
	}
	if fill == nil {
		t.Fatal("no fill after Tx.")
	}
	r, err := c.server.CompletionResolve(ctx, fill)
	if err != nil {
		t.Fatal(err)
	}
	if d := markupText(r.Documentation); !strings.Contains(d, "Fill the buffer region with the value.") || !strings.Contains(d, "`value` (PrimExpr): The value to be filled.") {
		t.Errorf("resolved documentation of fill:\n%s", d)
	}
	for _, it := range complete(`dispatch="`) {
		if !strings.Contains(markupText(it.Documentation), "of `fill`") {
			t.Errorf("variant %s: no documentation in the list", it.Label)
		}
	}
}
