package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// referenceOf runs tilels.reference on u.
func (c *testClient) referenceOf(u uri.URI) map[string]string {
	c.t.Helper()
	res, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdReference, Arguments: []protocol.LSPAny{mustJSON(string(u))}})
	if err != nil {
		c.t.Fatal(err)
	}
	var out map[string]string
	if err := json.Unmarshal(res, &out); err != nil {
		c.t.Fatal(err)
	}
	return out
}

// fakeEnv makes dir/<env> a Python environment with apache-tvm version
// installed (its METADATA only, as pip writes it).
func fakeEnv(t *testing.T, dir, env, version string) string {
	t.Helper()
	d := filepath.Join(dir, env, "lib", "python3.11", "site-packages", "apache_tvm-"+version+".dist-info")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := "Metadata-Version: 2.1\nName: apache-tvm\nVersion: " + version + "\n\n"
	if err := os.WriteFile(filepath.Join(d, "METADATA"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, env)
}

// TestReferenceAuto: with tilels.reference auto, a workspace folder's
// .venv with apache-tvm 0.26.0 makes its documents 0.26 ones (vec_auto,
// not 0.25's gmem_smem), which the hover, tilels.reference and the pin
// action say; the python setting names another environment, whose
// apache-tvm wins.
func TestReferenceAuto(t *testing.T) {
	ws := t.TempDir()
	venv := fakeEnv(t, ws, ".venv", "0.26.0")
	c := initClient(t, startServerWith(t, Options{Reference: "auto"}), fullCaps(), "", ws)
	u := uri.File(filepath.Join(ws, "k.py"))
	c.open(u, 1, roundtripSrc)
	c.waitDiags(u, 1)

	ref := c.referenceOf(u)
	line := "reference: apache-tvm 0.26.0 (auto: installed in " + venv + ")"
	if ref["release"] != "0.26.0" || ref["source"] != "environment" || ref["text"] != "TIRx 0.26 ✓ auto" || ref["tooltip"] != line {
		t.Errorf("tilels.reference: %v", ref)
	}
	h := hoverValue(c.hover(u, pos(14, 13)))
	if !strings.Contains(h, "→ **`vec_auto`**") || !strings.Contains(h, mdEscape(line)) {
		t.Errorf("hover under 0.26 from the environment:\n%s", h)
	}
	acts, err := c.server.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{Start: pos(14, 13), End: pos(14, 13)}})
	if err != nil {
		t.Fatal(err)
	}
	var pin *protocol.CodeAction
	for _, a := range acts {
		if ca, ok := a.(*protocol.CodeAction); ok && strings.HasPrefix(ca.Title, "Pin this file") {
			pin = ca
		}
	}
	if pin == nil || pin.Title != "Pin this file to apache-tvm 0.26 (# tilels: reference=0.26)" {
		t.Fatalf("pin action: %+v", pin)
	}
	if got := renderEdit(pin.Edit); got != "edit k.py 18:1-18:1:\n# tilels: reference=0.26\n" {
		t.Errorf("pin edit:\n%s", got)
	}

	// The python setting: an interpreter inside another environment.
	other := fakeEnv(t, t.TempDir(), "env", "0.25.0.post1")
	if err := os.MkdirAll(filepath.Join(other, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "bin", "python"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.settings = json.RawMessage(`{"python": ` + string(mustJSON(filepath.Join(other, "bin", "python"))) + `}`)
	c.mu.Unlock()
	if err := c.server.DidChangeConfiguration(context.Background(), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny("null")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "re-analysis under the interpreter's 0.25", func() bool { return c.referenceOf(u)["release"] == "0.25.0.post1" })
	if h := hoverValue(c.hover(u, pos(14, 13))); !strings.Contains(h, "→ **`gmem_smem`**") {
		t.Errorf("hover under the interpreter's 0.25:\n%s", h)
	}
}

// TestReferenceSetting: changing tilels.reference re-analyses an open
// document under the new release: dispatch="gmem_smem" lowers under 0.25
// and is the wheel's error, with its rename fix, under 0.27.
func TestReferenceSetting(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	src := strings.Replace(roundtripSrc, "A[0:32, 0:32])", `A[0:32, 0:32], dispatch="gmem_smem")`, 1)
	c.open(u, 1, src)
	if d := c.waitDiags(u, 1); len(d.Diagnostics) != 0 {
		t.Fatalf("under 0.25: %+v", d.Diagnostics)
	}
	c.mu.Lock()
	c.settings = json.RawMessage(`{"reference": "0.27"}`)
	c.mu.Unlock()
	if err := c.server.DidChangeConfiguration(context.Background(), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny("null")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the 0.27 diagnostics", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return hasCode(c.diags[u], "dispatch/forced-variant")
	})
	c.mu.Lock()
	dg := c.diags[u].Diagnostics[0]
	c.mu.Unlock()
	want := protocol.Range{Start: pos(14, 61), End: pos(14, 72)} // "gmem_smem" with its quotes
	if msg, _ := dg.Message.(protocol.String); dg.Range != want || !strings.HasSuffix(string(msg), "no variant named 'gmem_smem' is registered") {
		t.Errorf("diagnostic under 0.27: %s %q", rangeString(&dg.Range), msg)
	}
	if ref := c.referenceOf(u); ref["release"] != "0.27.0.post1" || ref["source"] != "setting" || ref["text"] != "TIRx 0.27 ✓ set" {
		t.Errorf("tilels.reference: %v", ref)
	}
	acts, err := c.server.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: dg.Range,
		Context: protocol.CodeActionContext{Only: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 {
		t.Fatalf("quick fixes: %v", acts)
	}
	if a := acts[0].(*protocol.CodeAction); renderAction(a) != "title: Rename dispatch=\"gmem_smem\" to \"vec_auto\" (registered by apache-tvm 0.27.0.post1)\nkind: quickfix\npreferred\nfixes dispatch/forced-variant 15:62-15:73\nedit k.py 15:62-15:73:\n\"vec_auto\"\n" {
		t.Errorf("quick fix:\n%s", renderAction(a))
	}
}
