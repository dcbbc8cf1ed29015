package lsp

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// fixFirstSrc: a 30x10 float32 global -> shared tile on 128 threads lowers
// only through fallback.
const fixFirstSrc = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def tile30x10(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (30, 10), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_s = T.alloc_buffer((30, 10), "float32", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
# tilels: reference=0.25
`

// TestFallbackFixFirst: the first publish of a version says no fix (it is
// not computed on the keystroke path); the background computes it and
// publishes the same version again with the verified fix first in the
// fallback-only warning; the code action on the warning is that fix (its
// title and the warning's note agree, and the action's diagnostic is the
// republished warning).
func TestFallbackFixFirst(t *testing.T) {
	defer func(d time.Duration) { fixDelay = d }(fixDelay)
	fixDelay = time.Hour
	c := newClient(t, fullCaps(), "")
	u := uri.File("/tilels-test/fixfirst.py")
	c.open(u, 1, fixFirstSrc)
	first := fallbackMessage(t, c.waitDiags(u, 1))
	if strings.Contains(first, "fix:") {
		t.Fatalf("the first publish computed the fix on the keystroke path: %s", first)
	}
	const head = "copy lowers only through fallback (scalar, single thread)"
	if !strings.HasPrefix(first, head+": gmem_smem: region size 300 not divisible by thread_cnt=128") {
		t.Fatalf("first publish: %s", first)
	}

	// A second version rests: its fix comes in a second publish.
	fixDelay = 10 * time.Millisecond
	c.change(u, 2, &protocol.TextDocumentContentChangeWholeDocument{Text: fixFirstSrc + "\n"})
	const want = head + "; fix: change the tile extent 30 to 32 and 10 to 12 (gmem_smem applies, verified) — gmem_smem: region size 300 not divisible by thread_cnt=128"
	var got string
	c.waitDiagsWhere(u, "fix first", func(p *protocol.PublishDiagnosticsParams) bool {
		if v, _ := p.Version.Get(); v != 2 {
			return false
		}
		got = fallbackMessageOf(p)
		return strings.Contains(got, "; fix: ")
	})
	if !strings.HasPrefix(got, want) {
		t.Fatalf("republished warning:\n%s\nwant it to start with\n%s", got, want)
	}

	// The code action is the same fix, first and preferred.
	line := uint32(strings.Count(fixFirstSrc[:strings.Index(fixFirstSrc, "    Tx.cta.copy")], "\n"))
	p := protocol.Position{Line: line, Character: 6}
	acts, err := c.server.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range: protocol.Range{Start: p, End: p}, Context: protocol.CodeActionContext{Only: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}}})
	if err != nil {
		t.Fatal(err)
	}
	var fix *protocol.CodeAction
	for _, a := range acts {
		if ca, ok := a.(*protocol.CodeAction); ok && ca.IsPreferred != nil && *ca.IsPreferred {
			fix = ca
			break
		}
	}
	if fix == nil {
		t.Fatalf("no preferred quick fix among %d actions", len(acts))
	}
	const title = "Change the tile extent 30 to 32 and 10 to 12: copy lowers through gmem_smem (verified)"
	if fix.Title != title {
		t.Errorf("preferred fix %q, want %q", fix.Title, title)
	}
	if len(fix.Diagnostics) != 1 || string(fix.Diagnostics[0].Message.(protocol.String)) != got {
		t.Errorf("the fix's diagnostic is not the republished warning: %+v", fix.Diagnostics)
	}
}

func fallbackMessage(t *testing.T, p *protocol.PublishDiagnosticsParams) string {
	t.Helper()
	m := fallbackMessageOf(p)
	if m == "" {
		t.Fatalf("no dispatch/fallback-only warning among %+v", p.Diagnostics)
	}
	return m
}

func fallbackMessageOf(p *protocol.PublishDiagnosticsParams) string {
	for _, d := range p.Diagnostics {
		if code, _ := d.Code.(protocol.String); code == "dispatch/fallback-only" {
			m, _ := d.Message.(protocol.String)
			return string(m)
		}
	}
	return ""
}
