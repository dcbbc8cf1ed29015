package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestImportedModuleEdit: a kernel takes a buffer size from a workspace
// module; editing that module's open buffer (unsaved) re-analyses the
// importing document, whose diagnostics and hover change; closing the
// buffer unsaved, and a change on disk reported by didChangeWatchedFiles,
// do the same.
func TestImportedModuleEdit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("pkg/__init__.py", "")
	consts := write("pkg/consts.py", "BLOCK = 64\n")
	mainSrc := `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from pkg.consts import BLOCK


@T.prim_func
def k(A: T.Buffer((64,), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    S = T.alloc_buffer((BLOCK,), "float32", scope="shared")
    Tx.copy(S[0:64], A[0:64])
`
	mainPath := write("main.py", mainSrc)
	c := newClientIn(t, fullCaps(), "", dir)
	mainURI, constsURI := uri.File(mainPath), uri.File(consts)
	c.open(mainURI, 1, mainSrc)
	if d := c.waitDiags(mainURI, 1); hasCode(d, "eval/out-of-bounds") {
		t.Fatalf("BLOCK = 64: unexpected diagnostics %+v", d.Diagnostics)
	}
	hoverS := func() string {
		return hoverValue(c.hover(mainURI, protocol.Position{Line: 10, Character: 5}))
	}
	if h := hoverS(); !strings.Contains(h, "shape `(64,)`") {
		t.Errorf("hover of S with BLOCK = 64: %q", h)
	}

	// An unsaved edit of the open module.
	c.open(constsURI, 1, "BLOCK = 64\n")
	c.change(constsURI, 2, &protocol.TextDocumentContentChangeWholeDocument{Text: "BLOCK = 32\n"})
	c.waitDiagsWhere(mainURI, "BLOCK = 32", func(d *protocol.PublishDiagnosticsParams) bool { return hasCode(d, "eval/out-of-bounds") })
	if h := hoverS(); !strings.Contains(h, "shape `(32,)`") {
		t.Errorf("hover of S with BLOCK = 32: %q", h)
	}

	// The module closed unsaved: the file on disk counts again.
	if err := c.server.DidClose(t.Context(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: constsURI}}); err != nil {
		t.Fatal(err)
	}
	c.waitDiagsWhere(mainURI, "closed, BLOCK = 64 on disk", func(d *protocol.PublishDiagnosticsParams) bool { return !hasCode(d, "eval/out-of-bounds") })
	if h := hoverS(); !strings.Contains(h, "shape `(64,)`") {
		t.Errorf("hover of S with BLOCK = 64 on disk: %q", h)
	}

	// Changed on disk.
	write("pkg/consts.py", "BLOCK = 16\n")
	if err := c.server.DidChangeWatchedFiles(t.Context(), &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{{URI: constsURI, Type: protocol.FileChangeTypeChanged}}}); err != nil {
		t.Fatal(err)
	}
	c.waitDiagsWhere(mainURI, "BLOCK = 16 on disk", func(d *protocol.PublishDiagnosticsParams) bool { return hasCode(d, "eval/out-of-bounds") })
	if h := hoverS(); !strings.Contains(h, "shape `(16,)`") {
		t.Errorf("hover of S with BLOCK = 16: %q", h)
	}
}

func hasCode(d *protocol.PublishDiagnosticsParams, code string) bool {
	for _, x := range d.Diagnostics {
		if s, ok := x.Code.(protocol.String); ok && string(s) == code {
			return true
		}
	}
	return false
}

// waitDiagsWhere waits until the last diagnostics published for u satisfy ok.
func (c *testClient) waitDiagsWhere(u uri.URI, what string, ok func(*protocol.PublishDiagnosticsParams) bool) {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		last := c.diags[u]
		c.mu.Unlock()
		if last != nil && ok(last) {
			return
		}
		select {
		case <-c.diagCh:
		case <-deadline:
			c.t.Fatalf("%s: diagnostics of %s never changed as expected; last %+v\nlog:\n%s", what, u, last, c.logs.String())
		}
	}
}

// TestExtraPathsSetting: a module outside the document's package root and
// the workspace folders resolves under the extraPaths setting, and only
// then.
func TestExtraPathsSetting(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"lib/shapes.py": "ROWS = 64\n",
		"app/k.py":      "",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := `from tvm.script import tirx as T
from shapes import ROWS


@T.prim_func
def k(A: T.Buffer((ROWS,), "float32")):
    T.device_entry()
`
	u := uri.File(filepath.Join(dir, "app", "k.py"))
	unresolved := func(d *protocol.PublishDiagnosticsParams) bool { return hasCode(d, "eval/unresolved") }

	c := newClientIn(t, fullCaps(), "", filepath.Join(dir, "app"))
	c.open(u, 1, src)
	if d := c.waitDiags(u, 1); !unresolved(d) {
		t.Errorf("without extraPaths: want shapes.ROWS unresolved, got %+v", d.Diagnostics)
	}

	c = newClientIn(t, fullCaps(), `{"extraPaths": ["../lib"]}`, filepath.Join(dir, "app"))
	c.open(u, 1, src)
	if d := c.waitDiags(u, 1); unresolved(d) {
		t.Errorf("with extraPaths ../lib (from the folder): unexpected %+v", d.Diagnostics)
	}
	if _, err := mergeSettings(defaultSettings(), []byte(`{"extraPaths": "lib"}`)); err == nil || !strings.Contains(err.Error(), "extraPaths must be a list") {
		t.Errorf("extraPaths a string: err %v", err)
	}
}
