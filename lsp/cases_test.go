package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// gridSrc is a kernel def with four cases (a pytest grid over a factory).
const gridSrc = `import pytest
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


def make_copy(shape, dtype):
    @T.prim_func
    def copy(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, shape, dtype)
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
        A_s = T.alloc_buffer(shape, dtype, scope="shared")
        Tx.warp.copy(A_s[:, :], A[:, :])

    return copy


@pytest.mark.parametrize("shape", [(32, 32), (4, 6)])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_copy(shape, dtype):
    make_copy(shape, dtype)
`

// caseCUDA is what tilels --lower --case n prints for src.
func caseCUDA(t *testing.T, src string, n int, opts lower.Options) string {
	t.Helper()
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), opts)
	var ks []*lower.Kernel
	for _, k := range res.Kernels {
		if k.CaseIndex == n || k.CaseCount <= 1 && n == 1 {
			ks = append(ks, k)
		}
	}
	cu, err := lower.CUDA(ks, opts)
	if err != nil {
		t.Fatal(err)
	}
	return cu
}

func (c *testClient) command(name string, args ...any) (map[string]any, error) {
	c.t.Helper()
	var raw []protocol.LSPAny
	for _, a := range args {
		raw = append(raw, mustJSON(a))
	}
	res, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: name, Arguments: raw})
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res, &out); err != nil {
		c.t.Fatal(err)
	}
	return out, nil
}

func (c *testClient) lenses(u uri.URI) []string {
	c.t.Helper()
	res, err := c.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		c.t.Fatal(err)
	}
	var out []string
	for _, l := range res {
		out = append(out, l.Command.Title)
	}
	return out
}

// TestSelectCase: the case lens cycles through the cases; the selection
// refreshes the lowered view, which then shows the selected case's CUDA;
// a def is named by name or position; bad arguments are InvalidParams;
// the selection survives edits (by label when the grid is reordered).
func TestSelectCase(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 1, gridSrc)
	c.waitDiags(u, 1)
	view := loweredURI(u, "cu", "copy")
	content := func() string {
		r, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: view})
		if err != nil {
			t.Fatal(err)
		}
		return r.Text
	}
	if got := content(); !strings.Contains(got, "// tilels: copy case 1/4: shape=(32, 32), dtype='float16'\n") || !strings.HasSuffix(got, caseCUDA(t, gridSrc, 1, lower.Options{Reference: "0.25"})) {
		t.Fatalf("view before a selection:\n%s", got)
	}
	// The lens's command, as the editor runs it: the next case.
	ls, err := c.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil || len(ls) != 2 || ls[1].Command.Title != "case 1/4: shape=(32, 32), dtype='float16' ▸" {
		t.Fatalf("lenses: %v %+v", err, ls)
	}
	if _, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: ls[1].Command.Command, Arguments: ls[1].Command.Arguments}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a refresh of the view", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, x := range c.refreshed {
			if x == view {
				return true
			}
		}
		return false
	})
	if got := content(); !strings.Contains(got, "copy case 2/4: shape=(4, 6), dtype='float16'") || !strings.HasSuffix(got, caseCUDA(t, gridSrc, 2, lower.Options{Reference: "0.25"})) {
		t.Errorf("view of case 2:\n%s", got)
	}
	if l := c.lenses(u); l[1] != "case 2/4: shape=(4, 6), dtype='float16' ▸" {
		t.Errorf("lens after the selection: %q", l)
	}
	// By index, then cycling past the last case.
	if r, err := c.command(cmdSelectCase, string(u), "copy", 4); err != nil || r["case"] != 4.0 || r["count"] != 4.0 {
		t.Errorf("select 4: %v %v", r, err)
	}
	if r, err := c.command(cmdSelectCase, string(u), "copy"); err != nil || r["case"] != 1.0 {
		t.Errorf("select after the last: %v %v", r, err)
	}
	// By position: inside the def.
	if r, err := c.command(cmdSelectCase, string(u), pos(13, 10), 3); err != nil || r["case"] != 3.0 || r["label"] != "shape=(32, 32), dtype='float32'" {
		t.Errorf("select by position: %v %v", r, err)
	}
	if r, err := c.command(cmdPickCase, string(u), "copy"); err != nil || r["selected"] != 3.0 || len(r["cases"].([]any)) != 4 {
		t.Errorf("pickCase: %v %v", r, err)
	}
	for _, bad := range [][]any{
		{string(u), "copy", 5},
		{string(u), "copy", 0},
		{string(u), "copy#2"},
		{string(u), "nope"},
		{string(u), pos(0, 0)},
		{string(u), 7},
		{string(u)},
	} {
		if _, err := c.command(cmdSelectCase, bad...); rpcCode(err) != jsonrpc2.InvalidParams {
			t.Errorf("selectCase %v: %v", bad[1:], err)
		}
	}
	// An edit above the def keeps the selection.
	c.change(u, 2, partial(0, 0, 0, 0, "# moved\n"))
	c.waitDiags(u, 2)
	if l := c.lenses(u); l[1] != "case 3/4: shape=(32, 32), dtype='float32' ▸" {
		t.Errorf("lens after an edit: %q", l)
	}
	// Reordering the grid keeps the selected case (its label): float32
	// comes first now, so the case is number 1.
	line := strings.Count(gridSrc[:strings.Index(gridSrc, `["float16", "float32"]`)], "\n") + 1
	col := uint32(strings.Index(strings.Split(gridSrc, "\n")[line-1], `["float16"`))
	c.change(u, 3, partial(uint32(line), col, uint32(line), col+22, `["float32", "float16"]`))
	c.waitDiags(u, 3)
	if l := c.lenses(u); l[1] != "case 1/4: shape=(32, 32), dtype='float32' ▸" {
		t.Errorf("lens after reordering the grid: %q", l)
	}
	hs, err := c.server.InlayHint(context.Background(), &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{End: pos(99, 0)}})
	if err != nil || len(hs) != 1 || hs[0].Label.(protocol.String) != "→ gmem_smem, 4-wide, 8 rounds" {
		t.Errorf("hints of the selected case: %v %+v", err, hs)
	}
}

// TestWriteSelectedCase: an LSP 3.16 client (the server writes the file):
// tilels.writeCUDA writes the selected case, as tilels --lower --case N.
func TestWriteSelectedCase(t *testing.T) {
	yes := true
	caps := protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{ApplyEdit: &yes}}
	dir := t.TempDir()
	c := newClientIn(t, caps, "", dir)
	u := uri.File(filepath.Join(dir, "k.py"))
	c.open(u, 1, gridSrc)
	if _, err := c.command(cmdSelectCase, string(u), "copy", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := c.command(cmdWriteCUDA, string(u)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "k.cu"))
	if err != nil || string(data) != caseCUDA(t, gridSrc, 2, lower.Options{Reference: "0.25"}) {
		t.Errorf("k.cu is not case 2: %v\n%s", err, data)
	}
	r, err := c.command(cmdShowLowered, string(u), "copy")
	if err != nil || r["cuda"] != string(data) {
		t.Errorf("showLowered for an old client: %v %v", err, r)
	}
}

// TestCaseSettings: bind and maxCases from workspace/configuration; a
// change re-analyses the open documents; a bad value is reported and
// changes nothing.
func TestCaseSettings(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	src := strings.Replace(gridSrc, "\n@pytest", "\ndef make_rows(M):\n    @T.prim_func\n    def rows(A_ptr: T.handle):\n        A = T.match_buffer(A_ptr, (M, 32), \"float32\")\n        T.device_entry()\n        T.cta_id([1])\n        T.thread_id([32])\n        A_s = T.alloc_buffer((M, 32), \"float32\", scope=\"shared\")\n        Tx.warp.copy(A_s[:, :], A[:, :])\n\n    return rows\n\n\n@pytest", 1)
	c.open(u, 1, src)
	codes := func(p *protocol.PublishDiagnosticsParams) string {
		var out []string
		for _, d := range p.Diagnostics {
			out = append(out, fmt.Sprint(d.Code))
		}
		return strings.Join(out, " ")
	}
	if got := codes(c.waitDiags(u, 1)); got != "dispatch/fallback-only eval/unbound" {
		t.Fatalf("diagnostics before the settings: %s", got)
	}
	set := func(js string) {
		c.mu.Lock()
		c.settings = json.RawMessage(js)
		c.mu.Unlock()
		if err := c.server.DidChangeConfiguration(context.Background(), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny("null")}); err != nil {
			t.Fatal(err)
		}
	}
	set(`{"bind": {"make_rows": "M=64"}, "maxCases": 2}`)
	waitFor(t, "the re-analysis", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		p := c.diags[u]
		return p != nil && codes(p) == "eval/case-cap"
	})
	hs, err := c.server.InlayHint(context.Background(), &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{End: pos(99, 0)}})
	if err != nil || len(hs) != 2 || hs[1].Label.(protocol.String) != "→ gmem_smem, 4-wide, 16 rounds" {
		t.Errorf("hints with M bound: %v %+v", err, hs)
	}
	if l := c.lenses(u); len(l) != 3 || l[1] != "case 1/2: dtype='float16' ▸" {
		t.Errorf("lenses with two cases: %q", l)
	}
	for _, bad := range []string{`{"maxCases": -1}`, `{"maxCases": 1e9}`, `{"maxCases": "many"}`, `{"bind": ["M=1"]}`, `{"bind": {"f": 3}}`} {
		n := len(c.messages)
		set(bad)
		waitFor(t, "a warning about "+bad, func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			return len(c.messages) > n
		})
	}
	if l := c.lenses(u); len(l) != 3 || l[1] != "case 1/2: dtype='float16' ▸" {
		t.Errorf("a rejected setting changed the others: %q", l)
	}
}
