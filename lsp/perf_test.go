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
	c, u, fixed, _ := applyPerfFix(t, "perf/bank-conflicts")
	if !strings.Contains(fixed, "layout=T.ComposeLayout(") {
		t.Fatalf("the fix does not swizzle A_s:\n%s", fixed)
	}
	fm := NewMapper([]byte(fixed))
	at := strings.Index(fixed, "Tx.warp.copy(row")
	h := hoverValue(c.hover(u, fm.Position(at+len("Tx.warp."))))
	if !strings.Contains(h, "shared load: 8 instructions, 32 wavefronts (ideal 32)") {
		t.Errorf("hover after the fix:\n%s", h)
	}
}

// TestCoalesceFixApplied applies the preferred quick fix of the same
// file's perf/uncoalesced warning: the register tile's layout that gives
// neighbouring lanes neighbouring 16-byte pieces of its rows. The store
// then takes its ideal sectors, and the read of the shared tile into the
// same registers loses its bank conflicts too (each lane now reads back
// the bytes it stored, which ptxas forwards: no load is left).
func TestCoalesceFixApplied(t *testing.T) {
	c, u, fixed, pub := applyPerfFix(t, "perf/uncoalesced")
	for _, d := range pub.Diagnostics {
		if dc, _ := d.Code.(protocol.String); string(dc) == "perf/bank-conflicts" {
			t.Errorf("after the fix: %s", d.Message)
		}
	}
	if !strings.Contains(fixed, "layout=TileLayout(S[(8, 4, 8, 4):(4, 8 @ laneid, 1 @ laneid, 1)])") {
		t.Fatalf("the fix does not give row its coalesced layout:\n%s", fixed)
	}
	fm := NewMapper([]byte(fixed))
	at := strings.Index(fixed, "Tx.warp.copy(B")
	if h := hoverValue(c.hover(u, fm.Position(at+len("Tx.warp.")))); !strings.Contains(h, "global store: 8 requests, 128 sectors (ideal 128)") {
		t.Errorf("hover of the store after the fix:\n%s", h)
	}
}

// applyPerfFix opens perf_bank_conflicts.txtar's kernel, applies the
// preferred verified fix of its warning of code, and checks that the
// re-analysed document has no warning of that code left; it returns the
// client, the document, its fixed text and the publish of it.
func applyPerfFix(t *testing.T, code string) (*testClient, uri.URI, string, *protocol.PublishDiagnosticsParams) {
	t.Helper()
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
		if dc, _ := d.Code.(protocol.String); string(dc) == code {
			warn = &pub.Diagnostics[i]
		}
	}
	if warn == nil {
		t.Fatalf("no %s warning: %v", code, pub.Diagnostics)
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
	} else if dc, _ := fix.Diagnostics[0].Code.(protocol.String); string(dc) != code {
		t.Errorf("the fix resolves %v, want %s", fix.Diagnostics[0].Code, code)
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
	c.change(u, 2, &protocol.TextDocumentContentChangeWholeDocument{Text: fixed})
	pub = c.waitDiags(u, 2)
	for _, d := range pub.Diagnostics {
		if dc, _ := d.Code.(protocol.String); string(dc) == code {
			t.Errorf("after the fix: %s", d.Message)
		}
	}
	return c, u, fixed, pub
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
