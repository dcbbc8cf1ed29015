package lsp

import (
	"context"
	"sort"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/internal/txtar"
)

// TestQuickFixApplied applies every quick fix of
// lsp/testdata/quickfix.txtar (each #@codeaction marker) through the
// server, sends the changed text as the next version and checks the
// re-analysed document: the diagnostic the fix names is gone from its
// line, the file has no more errors than before, and where the fix is a
// dispatch fix the call's hover names a variant other than fallback (the
// one the title promises).
func TestQuickFixApplied(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/quickfix.txtar")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := ar.Get("kernel.py")
	src := string(data)
	markers := parseMarkers(t, src)
	n := 0
	for _, mk := range markers {
		if mk.name != "codeaction" {
			continue
		}
		n++
		t.Run(mk.arg(2), func(t *testing.T) {
			checkFixApplied(t, src, mk)
		})
	}
	if n < 8 {
		t.Fatalf("%d code action markers, want at least 8", n)
	}
}

func checkFixApplied(t *testing.T, src string, mk marker) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/tilels-test/quickfix.py")
	c.open(u, 1, src)
	pub := c.waitDiags(u, 1)
	m := NewMapper([]byte(src))
	i := strings.Index(mk.code, mk.arg(0))
	if i < 0 {
		t.Fatalf("needle %q not on line %d", mk.arg(0), mk.line+1)
	}
	p := m.Position(mk.pos + i)
	acts, err := c.server.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range: protocol.Range{Start: p, End: p}, Context: protocol.CodeActionContext{Only: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}}})
	if err != nil {
		t.Fatal(err)
	}
	var fix *protocol.CodeAction
	for _, a := range acts {
		if ca, ok := a.(*protocol.CodeAction); ok && ca.Title == mk.arg(1) {
			fix = ca
		}
	}
	if fix == nil || fix.Edit == nil || len(fix.Diagnostics) != 1 {
		t.Fatalf("no fix %q with an edit and its diagnostic among %d actions", mk.arg(1), len(acts))
	}
	code, _ := fix.Diagnostics[0].Code.(protocol.String)
	line := fix.Diagnostics[0].Range.Start.Line
	var edits []protocol.TextEdit
	for _, dc := range fix.Edit.DocumentChanges {
		if te, ok := dc.(*protocol.TextDocumentEdit); ok {
			for _, e := range te.Edits {
				if x, ok := e.(*protocol.TextEdit); ok {
					edits = append(edits, *x)
				}
			}
		}
	}
	edits = append(edits, fix.Edit.Changes[u]...)
	if len(edits) == 0 {
		t.Fatal("the fix has no edits")
	}
	// Apply from the end so that earlier offsets stay valid.
	sort.Slice(edits, func(a, b int) bool { return m.Offset(edits[a].Range.Start) > m.Offset(edits[b].Range.Start) })
	fixed := src
	for _, e := range edits {
		lo, hi := m.Offset(e.Range.Start), m.Offset(e.Range.End)
		fixed = fixed[:lo] + e.NewText + fixed[hi:]
	}
	if fixed == src {
		t.Fatal("the fix changes nothing")
	}
	c.change(u, 2, &protocol.TextDocumentContentChangeWholeDocument{Text: fixed})
	after := c.waitDiags(u, 2)
	errs := func(ds []protocol.Diagnostic) int {
		n := 0
		for _, d := range ds {
			if d.Severity == protocol.DiagnosticSeverityError {
				n++
			}
		}
		return n
	}
	for _, d := range after.Diagnostics {
		if dc, _ := d.Code.(protocol.String); dc == code && d.Range.Start.Line == line {
			t.Errorf("after the fix, line %d still has %s: %v", line+1, code, d.Message)
		}
	}
	if errs(after.Diagnostics) > errs(pub.Diagnostics) {
		t.Errorf("the fix adds errors: %d before, %d after", errs(pub.Diagnostics), errs(after.Diagnostics))
	}
	// A dispatch fix: the call now lowers through the variant its title
	// names ("copy lowers through gmem_smem (verified)").
	if _, variant, ok := strings.Cut(mk.arg(1), " lowers through "); ok {
		variant = strings.TrimSuffix(variant, " (verified)")
		fm := NewMapper([]byte(fixed))
		at := lineStart(fixed, int(line)) + strings.Index(mk.code, "Tx.") + len("Tx.")
		h := hoverValue(c.hover(u, fm.Position(at)))
		if !strings.Contains(h, "→ **`"+variant+"`**") {
			t.Errorf("after the fix the call's hover does not select %s:\n%s", variant, h)
		}
	}
}

// lineStart returns the byte offset of 0-based line n of s.
func lineStart(s string, n int) int {
	off := 0
	for ; n > 0; n-- {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return len(s)
		}
		off += i + 1
	}
	return off
}
