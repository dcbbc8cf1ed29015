package lsp

import (
	"context"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/internal/txtar"
)

// TestPerfFixApplied applies the preferred quick fix of a
// perf/bank-conflicts warning (lsp/testdata/perf_bank_conflicts.txtar)
// and checks that the re-analysed document has no such warning left, and
// that the call's hover then shows its ideal figures.
func TestPerfFixApplied(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/perf_bank_conflicts.txtar")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := ar.Get("kernel.py")
	src := string(data)
	c := newClient(t, fullCaps(), "")
	u := uri.File("/tilels-test/perf.py")
	c.open(u, 1, src)
	pub := c.waitDiags(u, 1)
	var warn *protocol.Diagnostic
	for i, d := range pub.Diagnostics {
		if code, _ := d.Code.(protocol.String); code == "perf/bank-conflicts" {
			warn = &pub.Diagnostics[i]
		}
	}
	if warn == nil {
		t.Fatalf("no perf/bank-conflicts warning: %v", pub.Diagnostics)
	}
	acts, err := c.server.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: warn.Range,
		Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{*warn}}})
	if err != nil {
		t.Fatal(err)
	}
	var fix *protocol.CodeAction
	for _, a := range acts {
		if ca, ok := a.(*protocol.CodeAction); ok && ca.IsPreferred != nil && *ca.IsPreferred && strings.Contains(ca.Title, "(verified)") {
			fix = ca
		}
	}
	if fix == nil {
		t.Fatalf("no preferred verified fix among %d actions", len(acts))
	}
	if len(fix.Diagnostics) != 1 {
		t.Errorf("the fix resolves %d diagnostics, want the warning", len(fix.Diagnostics))
	}
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
	for _, e := range fix.Edit.Changes[u] {
		edits = append(edits, e)
	}
	if len(edits) != 1 {
		t.Fatalf("%d edits, want 1", len(edits))
	}
	m := NewMapper([]byte(src))
	lo, hi := m.Offset(edits[0].Range.Start), m.Offset(edits[0].Range.End)
	fixed := src[:lo] + edits[0].NewText + src[hi:]
	if !strings.Contains(fixed, "layout=T.ComposeLayout(") {
		t.Fatalf("the fix does not swizzle A_s:\n%s", fixed)
	}
	c.change(u, 2, &protocol.TextDocumentContentChangeWholeDocument{Text: fixed})
	pub = c.waitDiags(u, 2)
	for _, d := range pub.Diagnostics {
		if code, _ := d.Code.(protocol.String); code == "perf/bank-conflicts" {
			t.Errorf("after the fix: %s", d.Message)
		}
	}
	fm := NewMapper([]byte(fixed))
	at := strings.Index(fixed, "Tx.warp.copy(row")
	h := hoverValue(c.hover(u, fm.Position(at+len("Tx.warp."))))
	if !strings.Contains(h, "shared load: 8 instructions, 32 wavefronts (ideal 32)") {
		t.Errorf("hover after the fix:\n%s", h)
	}
}

// TestPerfOverWorkFollows: a kernel whose memory analysis takes more than
// lower.PublishWork statements (the conflicting copy inside a 3,000-trip
// runtime loop) is published first without its performance warning, and
// its warning follows in a second publish of the same version.
func TestPerfOverWorkFollows(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/perf_bank_conflicts.txtar")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := ar.Get("kernel.py")
	src := string(data)
	const call = "    Tx.warp.copy(row[:, :], A_s[:, :])"
	if !strings.Contains(src, call) {
		t.Fatal("the golden's conflicting copy moved")
	}
	src = strings.Replace(src, call, "    for i in T.serial(3000):\n    "+call, 1)
	c := newClient(t, fullCaps(), "")
	u := uri.File("/tilels-test/perf_loop.py")
	c.open(u, 1, src)
	has := func(p *protocol.PublishDiagnosticsParams) bool {
		for _, d := range p.Diagnostics {
			if code, _ := d.Code.(protocol.String); code == "perf/bank-conflicts" {
				return true
			}
		}
		return false
	}
	if first := c.waitDiags(u, 1); has(first) {
		t.Fatal("the first publish waited for an analysis over the bound")
	}
	c.waitDiagsWhere(u, "the warning in a second publish", func(p *protocol.PublishDiagnosticsParams) bool {
		v, _ := p.Version.Get()
		return v == 1 && has(p)
	})
}
