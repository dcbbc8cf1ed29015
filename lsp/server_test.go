package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

const roundtripSrc = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def roundtrip(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32", layout=TileLayout(S[32, 32]))
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_smem[:, :])
`

func partial(l0, c0, l1, c1 uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: pos(l0, c0), End: pos(l1, c1)}, Text: text}
}

func rpcCode(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// lowerCmd runs tilels.lower and returns the CUDA.
func (c *testClient) lowerCmd(u uri.URI, kernel string) (string, error) {
	args := []protocol.LSPAny{mustJSON(string(u))}
	if kernel != "" {
		args = append(args, mustJSON(kernel))
	}
	res, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdLower, Arguments: args})
	if err != nil {
		return "", err
	}
	var out struct{ CUDA, TIRx string }
	if err := json.Unmarshal(res, &out); err != nil {
		return "", err
	}
	return out.CUDA, nil
}

func cliCUDA(t testing.TB, src string) string { return cliCUDAIn(t, src, "0.25") }

// cliCUDAIn is the CUDA tilels --lower --reference ref prints for src
// ("auto" with no Python environment: the file's release, else the newest).
func cliCUDAIn(t testing.TB, src, ref string) string {
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{Reference: ref})
	cu, err := lower.CUDA(res.Kernels, lower.Options{Reference: ref})
	if err != nil {
		t.Fatal(err)
	}
	return cu
}

// TestIncrementalSync edits the document with ranged changes (one
// didChange with several changes, UTF-16 columns after a non-BMP
// character) and checks the server's text through the command output,
// which must equal the CLI's on the same text.
func TestIncrementalSync(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	c.waitDiags(u, 1)
	text := roundtripSrc
	// Line 15 (0-based 14) is the first copy; shrink the region to 16x32:
	// gmem_smem still applies with outer 4.
	line := strings.Split(text, "\n")[14]
	a := uint32(strings.Index(line, "A_smem[0:32") + len("A_smem[0:"))
	b := uint32(strings.Index(line, " A[0:32") + len(" A[0:"))
	// Two changes in one notification: the second's range is in the text
	// after the first.
	c.change(u, 2, partial(14, a, 14, a+2, "16"), partial(14, b, 14, b+2, "16"))
	text = strings.Replace(text, "A_smem[0:32, 0:32], A[0:32, 0:32]", "A_smem[0:16, 0:32], A[0:16, 0:32]", 1)
	// A comment with an emoji (two UTF-16 units), then text after it.
	c.change(u, 3, partial(0, 0, 0, 0, "# 😀 x\n"))
	c.change(u, 4, partial(0, 5, 0, 6, "y"))
	text = "# 😀 y\n" + text
	c.waitDiags(u, 4)
	got, err := c.lowerCmd(u, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := cliCUDA(t, text); got != want {
		t.Errorf("server text diverged from the edits:\n%s\nwant\n%s", got, want)
	}
	h := c.hover(u, pos(15, 13)) // "copy" of the edited call, one line lower now
	if !strings.Contains(hoverValue(h), "outer 4") {
		t.Errorf("hover after the edit:\n%s", hoverValue(h))
	}
}

// TestRapidEdits sends a thousand edits without waiting: publications are
// in increasing version order, the last one is for the last version, and
// the final text is right.
func TestRapidEdits(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	lines := strings.Split(roundtripSrc, "\n")
	row := uint32(15) // T.cuda.cta_sync()
	end := uint32(len(lines[15]))
	text := roundtripSrc
	for v := int32(2); v <= 1001; v++ {
		if v%2 == 0 {
			c.change(u, v, partial(row, end, row, end, "  # edit"))
		} else {
			c.change(u, v, partial(row, end, row, end+8, ""))
		}
	}
	c.waitDiags(u, 1001)
	c.mu.Lock()
	pubs := c.versions[u]
	c.mu.Unlock()
	last := int32(0)
	for _, v := range pubs {
		if v <= last {
			t.Errorf("version %d published after %d", v, last)
		}
		last = v
	}
	if len(pubs) > 500 {
		t.Logf("%d publications for 1000 edits (no coalescing?)", len(pubs))
	}
	got, err := c.lowerCmd(u, "")
	if err != nil {
		t.Fatal(err)
	}
	if got != cliCUDA(t, text) {
		t.Error("final text differs")
	}
	t.Logf("%d publications for 1000 edits", len(pubs))
}

// TestOutOfOrderVersions: a didChange whose version is not newer is
// ignored (its edits would corrupt the newer text) and never published.
func TestOutOfOrderVersions(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 5, roundtripSrc)
	c.waitDiags(u, 5)
	c.change(u, 3, partial(0, 0, 0, 0, "garbage(\n"))
	c.change(u, 6, partial(0, 0, 0, 0, "# ok\n"))
	c.waitDiags(u, 6)
	c.mu.Lock()
	for _, v := range c.versions[u] {
		if v == 3 {
			t.Error("version 3 was published")
		}
	}
	c.mu.Unlock()
	got, _ := c.lowerCmd(u, "")
	if got != cliCUDA(t, "# ok\n"+roundtripSrc) {
		t.Error("the out-of-order edit was applied")
	}
	if !strings.Contains(c.logs.String(), "out-of-order didChange") {
		t.Error("no warning logged")
	}
}

// TestLifecycle: requests before initialize get ServerNotInitialized,
// initialize twice is an invalid request, requests after shutdown are
// invalid, exit after shutdown ends Serve with 0.
func TestLifecycle(t *testing.T) {
	c := startServer(t)
	_, err := c.call("textDocument/hover", map[string]any{"textDocument": map[string]string{"uri": "file:///x.py"}, "position": map[string]int{"line": 0, "character": 0}})
	if rpcCode(err) != serverNotInitialized {
		t.Errorf("hover before initialize: %v", err)
	}
	if _, err := c.server.Initialize(context.Background(), &protocol.InitializeParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.server.Initialize(context.Background(), &protocol.InitializeParams{}); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: %v", err)
	}
	if err := c.server.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err = c.call("textDocument/hover", map[string]any{"textDocument": map[string]string{"uri": "file:///x.py"}, "position": map[string]int{"line": 0, "character": 0}})
	if rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("hover after shutdown: %v", err)
	}
	if err := c.server.Exit(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-c.done:
		if code != 0 {
			t.Errorf("exit code %d after shutdown, want 0", code)
		}
		c.done <- code
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit")
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	if err := c.server.Exit(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-c.done:
		if code != 1 {
			t.Errorf("exit code %d without shutdown, want 1", code)
		}
		c.done <- code
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit")
	}
}

// TestBadRequests: unknown methods, bad params, unknown commands and
// positions past the end are answered per the protocol, and the server
// keeps working.
func TestBadRequests(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	c.waitDiags(u, 1)
	if _, err := c.call("tilels/bogus", map[string]int{}); rpcCode(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unknown request: %v", err)
	}
	if _, err := c.call("textDocument/formatting", map[string]any{"textDocument": map[string]string{"uri": string(u)}, "options": map[string]any{"tabSize": 4, "insertSpaces": true}}); rpcCode(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unimplemented request: %v", err)
	}
	if err := c.conn.Notify(context.Background(), "tilels/bogusNotification", map[string]int{}); err != nil {
		t.Fatal(err)
	}
	if err := c.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{"textDocument": 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call("textDocument/hover", map[string]any{"textDocument": "nope"}); rpcCode(err) != jsonrpc2.InvalidParams {
		t.Errorf("hover with bad params: %v", err)
	}
	if _, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: "tilels.nope"}); rpcCode(err) != jsonrpc2.InvalidParams {
		t.Errorf("unknown command: %v", err)
	}
	if _, err := c.lowerCmd(u, "no_such_kernel"); rpcCode(err) != jsonrpc2.InvalidParams {
		t.Errorf("unknown kernel: %v", err)
	}
	if _, err := c.lowerCmd(uri.File("/w/not-open.py"), ""); rpcCode(err) != requestFailed {
		t.Errorf("document not open: %v", err)
	}
	if h := c.hover(u, pos(9999, 9999)); h != nil {
		t.Errorf("hover past the end: %v", hoverValue(h))
	}
	if h := c.hover(uri.File("/w/not-open.py"), pos(0, 0)); h != nil {
		t.Error("hover in a document that is not open")
	}
	// An edit far past the end appends (clamped).
	c.change(u, 2, partial(500, 3, 900, 0, "\n# tail\n"))
	c.waitDiags(u, 2)
	got, err := c.lowerCmd(u, "")
	if err != nil || got != cliCUDA(t, roundtripSrc+"\n# tail\n") {
		t.Errorf("after a past-the-end edit: %v", err)
	}
	if h := c.hover(u, pos(14, 13)); !strings.Contains(hoverValue(h), "gmem_smem") {
		t.Error("the server stopped answering hovers")
	}
	if !strings.Contains(c.logs.String(), "notification failed") {
		t.Error("the bad didChange was not logged")
	}
}

// bigSource is a file of about n bytes made of distinct kernels.
func bigSource(n int) string {
	var b strings.Builder
	b.WriteString("from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\nfrom tvm.tirx.layout import S, TileLayout\n\n")
	body := roundtripSrc[strings.Index(roundtripSrc, "@T.prim_func"):]
	for i := 0; b.Len() < n; i++ {
		b.WriteString("\n\n" + strings.Replace(body, "def roundtrip(", fmt.Sprintf("def roundtrip_%d(", i), 1))
	}
	return b.String()
}

// TestSettings: workspace/configuration is pulled after initialized and
// after didChangeConfiguration; a new arch re-analyses, inlayHints off
// empties the hints, a bad arch is reported and ignored.
func TestSettings(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	c.waitDiags(u, 1)
	hints := func() int {
		hs, err := c.server.InlayHint(context.Background(), &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{End: pos(99, 0)}})
		if err != nil {
			t.Fatal(err)
		}
		return len(hs)
	}
	if n := hints(); n != 2 {
		t.Fatalf("%d hints, want 2", n)
	}
	set := func(js string) {
		c.mu.Lock()
		c.settings = json.RawMessage(js)
		c.mu.Unlock()
		if err := c.server.DidChangeConfiguration(context.Background(), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny("null")}); err != nil {
			t.Fatal(err)
		}
	}
	set(`{"inlayHints": false, "arch": "sm_80"}`)
	waitFor(t, "settings applied", func() bool { return hints() == 0 })
	view := loweredURI(u, "cu", "")
	waitFor(t, "re-analysis for sm_80", func() bool {
		r, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: view})
		return err == nil && strings.Contains(r.Text, "arch=sm_80")
	})
	set(`{"arch": "sm_9000x"}`)
	waitFor(t, "a warning to the user", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.messages) > 0 && strings.Contains(c.messages[len(c.messages)-1], "sm_9000x")
	})
	if hints() != 0 {
		t.Error("a rejected setting changed the others")
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLoweredViewRefresh: a served tilels-lowered view is refreshed when
// its source changes, and then shows the new version.
func TestLoweredViewRefresh(t *testing.T) {
	dir := t.TempDir()
	c := newClientIn(t, fullCaps(), "", dir)
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	view := loweredURI(u, "cu", "roundtrip")
	r, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: view})
	if err != nil || !strings.Contains(r.Text, "version 1") {
		t.Fatalf("view: %v %q", err, r)
	}
	c.change(u, 2, partial(0, 0, 0, 0, "# v2\n"))
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
	r, err = c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: view})
	if err != nil || !strings.Contains(r.Text, "version 2") {
		t.Fatalf("view after the change: %v %q", err, r)
	}
	if _, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: "tilels-lowered:/w/k.py.asm"}); rpcCode(err) != jsonrpc2.InvalidParams {
		t.Errorf("bad view URI: %v", err)
	}
	// A view of a file that is not open shows the file as saved.
	saved := filepath.Join(dir, "saved.py")
	if err := os.WriteFile(saved, []byte(roundtripSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: loweredURI(uri.File(saved), "tirx", "")})
	if err != nil || !strings.Contains(r.Text, "def roundtrip(") || !strings.Contains(r.Text, "as saved") {
		t.Errorf("view of a closed file: %v %q", err, r)
	}
	if _, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: loweredURI(uri.File(filepath.Join(dir, "gone.py")), "cu", "")}); rpcCode(err) != requestFailed {
		t.Errorf("view of a missing file: %v", err)
	}
}

// TestOldClient is an LSP 3.16 client like Neovim 0.7: no showDocument,
// no textDocumentContent, no CreateFile edits. showLowered returns the
// text, writeCUDA writes the file itself, and the code action is a command.
func TestOldClient(t *testing.T) {
	yes := true
	caps := protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{ApplyEdit: &yes, WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &yes}},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			CodeAction: &protocol.CodeActionClientCapabilities{CodeActionLiteralSupport: protocol.ClientCodeActionLiteralOptions{CodeActionKind: protocol.ClientCodeActionKindOptions{ValueSet: []protocol.CodeActionKind{"source"}}}},
		},
	}
	dir := t.TempDir()
	c := newClientIn(t, caps, "", dir)
	path := filepath.Join(dir, "k.py")
	u := uri.File(path)
	c.open(u, 1, roundtripSrc)
	res, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdShowLowered, Arguments: []protocol.LSPAny{mustJSON(string(u))}})
	if err != nil {
		t.Fatal(err)
	}
	var shown struct{ URI, CUDA string }
	if err := json.Unmarshal(res, &shown); err != nil || shown.CUDA != cliCUDA(t, roundtripSrc) {
		t.Errorf("showLowered for an old client: %v %s", err, res)
	}
	acts, err := c.server.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil || len(acts) != 1 {
		t.Fatalf("code actions: %v %v", acts, err)
	}
	a, ok := acts[0].(*protocol.CodeAction)
	if !ok || a.Edit != nil || a.Command.Command != cmdWriteCUDA {
		t.Fatalf("code action for a client without CreateFile: %+v", acts[0])
	}
	if _, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: a.Command.Command, Arguments: a.Command.Arguments}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "k.cu"))
	if err != nil || string(data) != cliCUDA(t, roundtripSrc) {
		t.Errorf("k.cu: %v", err)
	}
	// Flat symbols without hierarchical support.
	sy, err := c.server.DocumentSymbol(context.Background(), &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if flat, ok := sy.(protocol.SymbolInformationSlice); err != nil || !ok || len(flat) != 4 {
		t.Errorf("flat symbols: %v %#v", err, sy)
	}
}

// TestLargeFile opens a 5 MB file: it is analysed, published, hoverable.
func TestLargeFile(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/big.py")
	src := bigSource(5_000_000)
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	line := uint32(strings.Count(src[:strings.LastIndex(src, "Tx.warp.copy(A_smem")], "\n"))
	if h := c.hover(u, pos(line, 13)); !strings.Contains(hoverValue(h), "gmem_smem") {
		t.Errorf("hover in the large file: %q", hoverValue(h))
	}
}

// TestStaleView: positions the client sends refer to its newest text;
// a snapshot of an older text is consulted through the edit between them.
func TestStaleView(t *testing.T) {
	s := newServer(Options{Log: &syncBuffer{}})
	old := newText(1, []byte(roundtripSrc))
	low, err := lower.NewSession(lower.Options{Reference: "0.25"}).Analyze(context.Background(), source.NewFile("k.py", old.src))
	if err != nil {
		t.Fatal(err)
	}
	d := s.newDocument(uri.File("/w/k.py"), old)
	d.snap.Store(newSnapshot(old, low, lower.Options{Reference: "0.25"}, 0))
	cur := newText(2, []byte("# a new first line\n"+roundtripSrc))
	d.cur.Store(cur)
	v := d.view()
	if v.same {
		t.Fatal("texts differ")
	}
	// The first copy is on line 16 now (0-based 15).
	off, ok := v.snapPos(pos(15, 13))
	if !ok {
		t.Fatal("position after the edit has no counterpart")
	}
	kv := defAt(v.snap.defs(), off).recs[0]
	if ds := callsAt(kv, off, true); len(ds) != 1 {
		t.Fatalf("%d calls at the mapped position", len(ds))
	}
	r, ok := v.rangeOf(kv.ToFile(kv.Kernel.Calls[0].Call.OpSpan))
	if !ok || r.Start != pos(15, 4) {
		t.Errorf("range in the newest text: %v %v", r, ok)
	}
	if _, ok := v.snapPos(pos(0, 3)); ok {
		t.Error("a position inside the inserted text was mapped")
	}
}

// TestPanics: a panic in a request handler answers that request with an
// internal error, a panic in an analysis is logged and the next edit is
// analysed; the server keeps running either way.
func TestPanics(t *testing.T) {
	var analyses atomic.Int32
	c := startServerWith(t, Options{
		hookRequest: func(method string) {
			if method == "textDocument/documentSymbol" {
				panic("boom in a handler")
			}
		},
		hookAnalyze: func() {
			if analyses.Add(1) == 1 {
				panic("boom in an analysis")
			}
		},
	})
	c.allowErrors = true
	initClient(t, c, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	if _, err := c.lowerCmd(u, ""); rpcCode(err) != requestFailed || !strings.Contains(err.Error(), "failed") {
		t.Errorf("a command on a version whose analysis panicked: %v", err)
	}
	_, err := c.server.DocumentSymbol(context.Background(), &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if rpcCode(err) != jsonrpc2.InternalError {
		t.Errorf("panicking handler: %v", err)
	}
	c.change(u, 2, partial(0, 0, 0, 0, "# again\n"))
	c.waitDiags(u, 2)
	if h := c.hover(u, pos(15, 13)); !strings.Contains(hoverValue(h), "gmem_smem") {
		t.Errorf("hover after the panics: %q", hoverValue(h))
	}
	logs := c.logs.String()
	if !strings.Contains(logs, "boom in a handler") || !strings.Contains(logs, "boom in an analysis") {
		t.Errorf("panics not logged:\n%s", logs)
	}
}

// TestHoverExamples hovers every tile call of the bundled examples: each
// hover names the chosen variant and carries the call's TIRx and CUDA
// excerpts (the excerpt extraction works for every variant they use).
func TestHoverExamples(t *testing.T) {
	paths, err := filepath.Glob("../testdata/examples/*.py")
	if err != nil || len(paths) == 0 {
		t.Fatal("no examples")
	}
	c := newClient(t, fullCaps(), "")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		u := uri.File("/w/" + filepath.Base(p))
		c.open(u, 1, string(data))
		c.waitDiags(u, 1)
		res := lower.Analyze(source.NewFile(filepath.Base(p), data), lower.Options{Reference: "0.25"})
		m := NewMapper(data)
		for _, k := range res.Kernels {
			for _, d := range k.Calls {
				h := hoverValue(c.hover(u, m.Position(int(d.Call.OpSpan.End)-1)))
				want := []string{"**`" + d.Variant + "`**", "**TIRx**\n```python\n# Tx.", "**CUDA**\n```cuda\n// Tx."}
				for _, w := range want {
					if !strings.Contains(h, w) {
						t.Errorf("%s: hover on %s lacks %q:\n%s", filepath.Base(p), d.Call.Op, w, h)
					}
				}
			}
		}
	}
}

// TestSettingsBase: a client whose configuration has no "tilels" section
// (eglot answers workspace/configuration with null) keeps the settings of
// its initializationOptions; a key the configuration leaves out falls back
// to them too.
func TestSettingsBase(t *testing.T) {
	c := newClient(t, fullCaps(), `{"arch": "sm_80", "inlayHints": false}`)
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	c.waitDiags(u, 1)
	for _, js := range []string{`null`, `{"maxCases": 8}`} {
		c.mu.Lock()
		c.settings = json.RawMessage(js)
		pulls := c.pulls
		c.mu.Unlock()
		if err := c.server.DidChangeConfiguration(context.Background(), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny("null")}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the configuration pulled", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.pulls > pulls })
		time.Sleep(100 * time.Millisecond) // the answer is applied after the client sees the request
		r, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: loweredURI(u, "cu", "")})
		if err != nil || !strings.Contains(r.Text, "arch=sm_80") {
			t.Errorf("configuration %s: the initializationOptions' arch is lost: %v %.200q", js, err, r)
		}
		hs, err := c.server.InlayHint(context.Background(), &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{End: pos(99, 0)}})
		if err != nil || len(hs) != 0 {
			t.Errorf("configuration %s: inlay hints came back on: %d %v", js, len(hs), err)
		}
	}
}
