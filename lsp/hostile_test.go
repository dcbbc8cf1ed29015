package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/headless"
	"github.com/tilels/tilels/lower"
)

// hostileSrc doubles a string until it would pass the evaluator's value
// budget: without it, a few GB and the server killed.
const hostileSrc = "s = 'x' * 65536\nfor i in range(20):\n    s = s + s\n\n"

// TestHostileDocument: a document whose Python would build gigabytes gets
// an eval/too-large error at the statement, within bounded memory, and
// the server keeps answering for another document.
func TestHostileDocument(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	good := uri.File("/w/good.py")
	c.open(good, 1, roundtripSrc)
	c.waitDiags(good, 1)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	bad := uri.File("/w/bad.py")
	c.open(bad, 1, hostileSrc+roundtripSrc)
	pub := c.waitDiags(bad, 1)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 600<<20 {
		t.Errorf("the hostile document allocated %d MB", alloc>>20)
	}
	found := false
	for _, d := range pub.Diagnostics {
		if d.Code == protocol.String(eval.CodeTooLarge) {
			found = true
			if d.Range.Start.Line != 2 || !strings.Contains(string(d.Message.(protocol.String)), "bytes would exceed the value budget") {
				t.Errorf("eval/too-large at %v: %v", d.Range, d.Message)
			}
		}
	}
	if !found {
		t.Fatalf("no eval/too-large: %+v", pub.Diagnostics)
	}
	// The hostile document's kernel is still analysed, and so is the other.
	line := uint32(strings.Count(roundtripSrc[:strings.Index(roundtripSrc, "Tx.warp.copy(A_smem")], "\n"))
	if h := c.hover(good, pos(line, 13)); !strings.Contains(hoverValue(h), "gmem_smem") {
		t.Errorf("hover on the other document: %q", hoverValue(h))
	}
	if h := c.hover(bad, pos(line+4, 13)); !strings.Contains(hoverValue(h), "gmem_smem") {
		t.Errorf("hover on the kernel after the hostile code: %q", hoverValue(h))
	}
}

// TestDocumentTooLarge: a document over 16 MiB is kept but not analysed
// (one lower/too-large error at its start); the other documents answer;
// once it shrinks it is analysed.
func TestDocumentTooLarge(t *testing.T) {
	if maxDocumentBytes != headless.MaxInputBytes {
		t.Errorf("the server's limit %d is not tilels --lower's %d", maxDocumentBytes, headless.MaxInputBytes)
	}
	c := newClient(t, fullCaps(), "")
	good := uri.File("/w/good.py")
	c.open(good, 1, roundtripSrc)
	c.waitDiags(good, 1)
	big := uri.File("/w/big.py")
	c.open(big, 1, roundtripSrc+"#"+strings.Repeat("x", maxDocumentBytes)+"\n")
	pub := c.waitDiags(big, 1)
	if len(pub.Diagnostics) != 1 || pub.Diagnostics[0].Code != protocol.String(lower.CodeTooLarge) || pub.Diagnostics[0].Range.Start != pos(0, 0) {
		t.Fatalf("diagnostics of the large document: %+v", pub.Diagnostics)
	}
	if msg := string(pub.Diagnostics[0].Message.(protocol.String)); !strings.Contains(msg, "16777216 bytes (16 MiB)") {
		t.Errorf("message %q", msg)
	}
	line := uint32(strings.Count(roundtripSrc[:strings.Index(roundtripSrc, "Tx.warp.copy(A_smem")], "\n"))
	if h := c.hover(good, pos(line, 13)); !strings.Contains(hoverValue(h), "gmem_smem") {
		t.Errorf("hover on the other document: %q", hoverValue(h))
	}
	if h := c.hover(big, pos(line, 13)); h != nil {
		t.Errorf("hover in the unanalysed document: %q", hoverValue(h))
	}
	// Delete the long comment line: the document is analysed again.
	n := uint32(strings.Count(roundtripSrc, "\n"))
	c.change(big, 2, partial(n, 0, n+1, 0, ""))
	pub = c.waitDiags(big, 2)
	if len(pub.Diagnostics) != 0 {
		t.Errorf("diagnostics after shrinking: %+v", pub.Diagnostics)
	}
	if h := c.hover(big, pos(line, 13)); !strings.Contains(hoverValue(h), "gmem_smem") {
		t.Errorf("hover after shrinking: %q", hoverValue(h))
	}
}

// TestMaxCasesSetting: the largest maxCases the server accepts (4096) on
// a grid of a million cases analyses 4096 of them, within bounded memory;
// a larger one is refused.
func TestMaxCasesSetting(t *testing.T) {
	src := `import pytest
from tvm.script import tirx as T

V = list(range(1000))


@pytest.mark.parametrize("a", V)
@pytest.mark.parametrize("b", V)
def test_k(a, b):
    @T.prim_func
    def k(A: T.Buffer((128,), "float32")):
        T.evaluate(a + b)
`
	if maxCasesLimit != eval.MaxCasesLimit {
		t.Errorf("the setting's limit %d is not the evaluator's %d", maxCasesLimit, eval.MaxCasesLimit)
	}
	c := newClient(t, fullCaps(), `{"maxCases": 4096}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	u := uri.File("/w/grid.py")
	c.open(u, 1, src)
	pub := c.waitDiags(u, 1)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 600<<20 {
		t.Errorf("the grid allocated %d MB", alloc>>20)
	}
	if len(pub.Diagnostics) != 1 || !strings.Contains(string(pub.Diagnostics[0].Message.(protocol.String)), "has 1000000 cases; 4096 of them") {
		t.Errorf("diagnostics: %+v", pub.Diagnostics)
	}
	if _, err := mergeSettings(defaultSettings(), []byte(`{"maxCases": 99999999}`)); err == nil {
		t.Error("maxCases 99999999 accepted")
	}
}

// loweredView asks for the CUDA view of path, which is not open.
func loweredView(c *testClient, path string) (string, error) {
	r, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: loweredURI(uri.File(path), "cu", "")})
	if err != nil {
		return "", err
	}
	return r.Text, nil
}

// TestLoweredViewPaths: a view of a source that is not open reads only a
// regular file inside a workspace folder, at most 16 MiB of it.
func TestLoweredViewPaths(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "k.py"), roundtripSrc)
	write(filepath.Join(out, "secret.py"), roundtripSrc)
	if err := os.Symlink(filepath.Join(out, "secret.py"), filepath.Join(ws, "link.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "dir.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(ws, "huge.py"), "#"+strings.Repeat("x", maxDocumentBytes))

	c := newClientIn(t, fullCaps(), "", ws)
	if text, err := loweredView(c, filepath.Join(ws, "k.py")); err != nil || !strings.Contains(text, "as saved") {
		t.Fatalf("a file inside the workspace: %v %q", err, text)
	}
	for _, tc := range []struct{ path, why string }{
		{filepath.Join(out, "secret.py"), "outside the workspace folders"},
		{ws + "/../" + filepath.Base(out) + "/secret.py", "outside the workspace folders"},
		{filepath.Join(ws, "link.py"), "outside the workspace folders"},
		{filepath.Join(ws, "linkdir", "secret.py"), "outside the workspace folders"},
		{"/dev/zero", "outside the workspace folders"},
		{filepath.Join(ws, "dir.py"), "not a regular file"},
		{filepath.Join(ws, "huge.py"), "more than the 16777216 bytes"},
		{filepath.Join(ws, "gone.py"), "no such file"},
	} {
		_, err := loweredView(c, tc.path)
		if rpcCode(err) != requestFailed || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("view of %s: %v, want %q", tc.path, err, tc.why)
		}
	}
	// An open document is served from its text wherever it lies.
	u := uri.File(filepath.Join(out, "open.py"))
	c.open(u, 1, roundtripSrc)
	if text, err := loweredView(c, filepath.Join(out, "open.py")); err != nil || !strings.Contains(text, "version 1") {
		t.Errorf("an open document outside the workspace: %v %q", err, text)
	}
	// Without workspace folders nothing is read.
	c2 := newClient(t, fullCaps(), "")
	if _, err := loweredView(c2, filepath.Join(ws, "k.py")); err == nil || !strings.Contains(err.Error(), "no workspace folder is open") {
		t.Errorf("a view without workspace folders: %v", err)
	}
}

// TestWriteCUDAPaths: tilels.writeCUDA writes beside an open document
// inside a workspace folder only; workspace/didChangeWorkspaceFolders
// moves the boundary.
func TestWriteCUDAPaths(t *testing.T) {
	yes := true
	caps := protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{ApplyEdit: &yes}} // the server writes
	ws, out := t.TempDir(), t.TempDir()
	c := newClientIn(t, caps, "", ws)
	write := func(u uri.URI) error {
		_, err := c.command(cmdWriteCUDA, string(u))
		return err
	}
	inside := uri.File(filepath.Join(ws, "k.py"))
	c.open(inside, 1, roundtripSrc)
	if err := write(inside); err != nil {
		t.Fatalf("inside the workspace: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "k.cu")); err != nil || !strings.Contains(string(data), "__global__") {
		t.Errorf("k.cu: %v", err)
	}

	outside := uri.File(filepath.Join(out, "k.py"))
	escape := uri.URI("file://" + ws + "/../" + filepath.Base(out) + "/e.py")
	c.open(outside, 1, roundtripSrc)
	c.open(escape, 1, roundtripSrc)
	for _, u := range []uri.URI{outside, escape} {
		if err := write(u); err == nil || !strings.Contains(err.Error(), "outside the workspace folders") {
			t.Errorf("write beside %s: %v", u, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "k.cu")); err == nil {
		t.Error("k.cu written outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(out, "e.cu")); err == nil {
		t.Error("e.cu written through ..")
	}

	// A target that is a link out of the workspace, or a directory.
	if err := os.Symlink(filepath.Join(out, "victim.cu"), filepath.Join(ws, "l.cu")); err != nil {
		t.Fatal(err)
	}
	link := uri.File(filepath.Join(ws, "l.py"))
	c.open(link, 1, roundtripSrc)
	if err := write(link); err == nil || !strings.Contains(err.Error(), "outside the workspace folders") {
		t.Errorf("write through a link: %v", err)
	}
	// A directory link to where nothing exists yet (an editor's CreateFile
	// would create the folders it leads to).
	if err := os.Symlink(filepath.Join(out, "new", "dir"), filepath.Join(ws, "ghost")); err != nil {
		t.Fatal(err)
	}
	ghost := uri.File(filepath.Join(ws, "ghost", "k.py"))
	c.open(ghost, 1, roundtripSrc)
	if err := write(ghost); err == nil || !strings.Contains(err.Error(), "outside the workspace folders") {
		t.Errorf("write through a dangling directory link: %v", err)
	}
	if err := os.Mkdir(filepath.Join(ws, "d.cu"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := uri.File(filepath.Join(ws, "d.py"))
	c.open(dir, 1, roundtripSrc)
	if err := write(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("write onto a directory: %v", err)
	}

	// The code action is disabled outside, with the reason.
	acts, err := c.server.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: outside}})
	if err != nil || len(acts) != 0 {
		t.Errorf("code action outside the workspace for a client that cannot show disabled actions: %v %v", acts, err)
	}

	// The client adds the other folder: writing there works; removing
	// the first folder refuses it.
	if err := c.server.DidChangeWorkspaceFolders(context.Background(), &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Added:   []protocol.WorkspaceFolder{{URI: uri.File(out), Name: "out"}},
		Removed: []protocol.WorkspaceFolder{{URI: uri.File(ws), Name: "ws"}},
	}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the folders to change", func() bool { return write(outside) == nil })
	if err := write(inside); err == nil || !strings.Contains(err.Error(), "outside the workspace folders") {
		t.Errorf("write in a removed folder: %v", err)
	}
}

// TestTranscriptHostile runs the hostile cases against both transports,
// the built binary included: a document whose Python would build
// gigabytes, a view of /dev/zero and a document over 16 MiB each get
// their diagnostic or error, the server keeps answering hovers, and the
// binary's peak resident memory stays bounded (Linux: VmHWM).
func TestTranscriptHostile(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := tr.start(t)
			ws := t.TempDir()
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, string(uri.File(ws))))
			w.response(1)
			w.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			diagsOf := func(u string, version float64) []any {
				m := w.await("diagnostics of "+u, func(m map[string]any) bool {
					p, _ := m["params"].(map[string]any)
					return m["method"] == "textDocument/publishDiagnostics" && p["uri"] == u && p["version"] == version
				})
				ds, _ := m["params"].(map[string]any)["diagnostics"].([]any)
				return ds
			}
			codes := func(ds []any) string {
				var out []string
				for _, d := range ds {
					c, _ := d.(map[string]any)["code"].(string)
					out = append(out, c)
				}
				return strings.Join(out, ",")
			}
			good := string(uri.File(filepath.Join(ws, "good.py")))
			w.send(didOpen(good, 1, roundtripSrc))
			diagsOf(good, 1)

			bad := string(uri.File(filepath.Join(ws, "bad.py")))
			w.send(didOpen(bad, 1, hostileSrc+roundtripSrc))
			if got := codes(diagsOf(bad, 1)); got != eval.CodeTooLarge {
				t.Errorf("diagnostics of the hostile document: %s", got)
			}
			big := string(uri.File(filepath.Join(ws, "big.py")))
			w.send(didOpen(big, 1, "#"+strings.Repeat("x", maxDocumentBytes)+"\n"))
			if got := codes(diagsOf(big, 1)); got != lower.CodeTooLarge {
				t.Errorf("diagnostics of the large document: %s", got)
			}
			w.send(`{"jsonrpc":"2.0","id":2,"method":"workspace/textDocumentContent","params":{"uri":"tilels-lowered:///dev/zero.cu"}}`)
			if r := w.response(2); errCode(r) != float64(requestFailed) {
				t.Errorf("view of /dev/zero: %v", r)
			}
			w.send(hoverReq(3, good, 14, 13))
			if b, _ := json.Marshal(w.response(3)["result"]); !bytes.Contains(b, []byte("vec_auto")) {
				t.Errorf("hover after the hostile inputs: %s", b)
			}
			if w.pid != 0 {
				if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", w.pid)); err == nil {
					for _, l := range strings.Split(string(status), "\n") {
						var kb int
						if _, err := fmt.Sscanf(l, "VmHWM: %d kB", &kb); err == nil && kb > 1<<20 {
							t.Errorf("the server's peak resident memory is %d MB", kb>>10)
						}
					}
				}
			}
			w.send(`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`)
			w.response(4)
			w.send(`{"jsonrpc":"2.0","method":"exit"}`)
			if code := w.exit(); code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
		})
	}
}
