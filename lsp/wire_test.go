package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Transcript tests: hand-written JSON-RPC frames, to the server in-process
// (a channel stream) and to the built tilels binary (stdio with
// Content-Length framing), so framing, malformed input, cancellation and
// the exit code are tested on what ships.

// wire is the client end of a connection: it writes frames as given and
// reads every frame the server sends.
type wire struct {
	t      testing.TB
	fs     frameStream
	raw    io.Writer // the byte stream (binary only), for broken headers
	frames chan map[string]any
	seen   []map[string]any // frames read so far, in order
	exit   func() int       // waits for the server to end; its exit code
	logs   func() string
	pid    int // the binary's process id (0 in-process)
}

// transports are the two ways to reach a server.
var transports = []struct {
	name  string
	start func(t testing.TB) *wire
}{
	{"inprocess", startInProcess},
	{"binary", startBinary},
}

func newWire(t testing.TB, fs frameStream) *wire {
	w := &wire{t: t, fs: fs, frames: make(chan map[string]any, 4096)}
	go func() {
		defer close(w.frames)
		for {
			frame, _, err := fs.ReadFrame(context.Background())
			if err != nil {
				return
			}
			var m map[string]any
			if err := json.Unmarshal(frame, &m); err != nil {
				t.Errorf("the server sent a frame that is not a JSON object: %q", frame)
				return
			}
			if m["jsonrpc"] != "2.0" {
				t.Errorf("frame without jsonrpc 2.0: %q", frame)
			}
			w.frames <- m
		}
	}()
	return w
}

func startInProcess(t testing.TB) *wire {
	left, right := jsonrpc2.NewChannelStreamPair(64)
	logs := &syncBuffer{}
	done := make(chan int, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- Serve(ctx, left, Options{Log: logs, LogLevel: slog.LevelDebug, Getenv: func(string) string { return "" }})
	}()
	w := newWire(t, right.(frameStream))
	w.logs = logs.String
	var once sync.Once
	code := 0
	w.exit = func() int {
		once.Do(func() {
			select {
			case code = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the server did not exit")
			}
		})
		return code
	}
	t.Cleanup(func() {
		cancel()
		right.Close()
		w.exit()
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Errorf("the server logged errors:\n%s", logs.String())
		}
	})
	return w
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// tilelsBinary builds cmd/tilels once per test run.
func tilelsBinary(t testing.TB) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tilels-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "tilels")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/tilels").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

type pipes struct {
	io.Reader
	io.Writer
	closer io.Closer
}

func (p pipes) Close() error { return p.closer.Close() }

func startBinary(t testing.TB) *wire {
	cmd := exec.Command(tilelsBinary(t)) // no arguments: the language server
	cmd.Env = withoutVirtualEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := newWire(t, jsonrpc2.NewHeaderStream(pipes{stdout, stdin, stdin}).(frameStream))
	w.raw = stdin
	w.logs = stderr.String
	w.pid = cmd.Process.Pid
	var once sync.Once
	code := -1
	w.exit = func() int {
		once.Do(func() {
			errc := make(chan error, 1)
			go func() { errc <- cmd.Wait() }()
			select {
			case <-errc:
				code = cmd.ProcessState.ExitCode()
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the server did not exit")
			}
		})
		return code
	}
	t.Cleanup(func() {
		stdin.Close()
		w.exit()
		if strings.Contains(stderr.String(), "level=ERROR") {
			t.Errorf("the server logged errors:\n%s", stderr.String())
		}
	})
	return w
}

func (w *wire) send(js string) {
	w.t.Helper()
	if _, err := w.fs.WriteFrame(context.Background(), []byte(js)); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

// await reads frames until one satisfies match, failing after a timeout.
func (w *wire) await(what string, match func(m map[string]any) bool) map[string]any {
	w.t.Helper()
	for _, m := range w.seen {
		if match(m) {
			return m
		}
	}
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-w.frames:
			if !ok {
				w.t.Fatalf("the server closed the stream while waiting for %s\nlog:\n%s", what, w.logs())
			}
			w.seen = append(w.seen, m)
			if match(m) {
				return m
			}
		case <-deadline:
			w.t.Fatalf("timed out waiting for %s\nlog:\n%s", what, w.logs())
		}
	}
}

func (w *wire) response(id any) map[string]any {
	want, _ := json.Marshal(id)
	return w.await("the response to "+string(want), func(m map[string]any) bool {
		_, isReq := m["method"]
		got, _ := json.Marshal(m["id"])
		return !isReq && string(got) == string(want)
	})
}

func (w *wire) diagnostics(version float64) map[string]any {
	return w.await(fmt.Sprintf("diagnostics of version %v", version), func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == "textDocument/publishDiagnostics" && p["version"] == version
	})
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`

func didOpen(uri string, version int, text string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "python", "version": version, "text": text}}})
	return string(b)
}

func didChange(uri string, version int, text string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "text": text}}}})
	return string(b)
}

func hoverReq(id int, uri string, line, char int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}}`, id, uri, line, char)
}

// TestTranscriptLifecycle: initialize, a document, its diagnostics, a
// hover, shutdown (a null result), exit: exit code 0.
func TestTranscriptLifecycle(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := tr.start(t)
			w.send(initialize)
			init := w.response(1)
			caps, _ := init["result"].(map[string]any)["capabilities"].(map[string]any)
			if caps["hoverProvider"] != true || caps["positionEncoding"] != "utf-16" {
				t.Errorf("capabilities: %v", caps)
			}
			sync, _ := caps["textDocumentSync"].(map[string]any)
			if sync["change"] != float64(2) {
				t.Errorf("text sync %v, want incremental (2)", sync)
			}
			w.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			// Version 0, as Neovim sends it.
			w.send(didOpen("file:///w/k.py", 0, roundtripSrc))
			d := w.diagnostics(0)
			if ds := d["params"].(map[string]any)["diagnostics"].([]any); len(ds) != 0 {
				t.Errorf("diagnostics: %v", ds)
			}
			w.send(`{"jsonrpc":"2.0","id":9,"method":"workspace/executeCommand","params":{"command":"tilels.lower","arguments":["file:///w/k.py"]}}`)
			low, _ := w.response(9)["result"].(map[string]any)
			// No Python environment and nothing in the file names a
			// release: the newest profile, as a new user gets it.
			if cu, _ := low["cuda"].(string); cu != cliCUDAIn(t, roundtripSrc, "auto") {
				t.Errorf("tilels.lower: %v", low)
			}
			w.send(hoverReq(2, "file:///w/k.py", 14, 13))
			h := w.response(2)
			if b, _ := json.Marshal(h["result"]); !bytes.Contains(b, []byte("vec_auto")) {
				t.Errorf("hover: %s", b)
			}
			w.send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
			r := w.response(3)
			if v, ok := r["result"]; !ok || v != nil {
				t.Errorf("shutdown response %v: want a null result", r)
			}
			w.send(`{"jsonrpc":"2.0","method":"exit"}`)
			if code := w.exit(); code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
		})
	}
}

// TestTranscriptCancel: a request waiting for the analysis of a large file
// is cancelled by $/cancelRequest and answered with -32800; a hover sent
// after it is answered too.
func TestTranscriptCancel(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := tr.start(t)
			w.send(initialize)
			w.response(1)
			w.send(didOpen("file:///w/big.py", 1, bigSource(4_000_000)))
			w.send(`{"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"tilels.lower","arguments":["file:///w/big.py"]}}`)
			start := time.Now()
			w.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}`)
			w.send(hoverReq(8, "file:///w/big.py", 0, 0))
			if r := w.response(7); errCode(r) != -32800 {
				t.Errorf("cancelled request: %v", r)
			}
			t.Logf("cancelled in %v", time.Since(start))
			w.response(8)
			w.diagnostics(1)
		})
	}
}

// TestTranscriptOutOfOrder: a didChange with an older version is ignored
// and never published; the next newer one is.
func TestTranscriptOutOfOrder(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := tr.start(t)
			w.send(initialize)
			w.response(1)
			w.send(didOpen("file:///w/k.py", 5, roundtripSrc))
			w.diagnostics(5)
			w.send(didChange("file:///w/k.py", 4, "broken(\n"))
			w.send(didChange("file:///w/k.py", 6, "# fine\n"))
			d := w.diagnostics(6)
			if ds := d["params"].(map[string]any)["diagnostics"].([]any); len(ds) != 0 {
				t.Errorf("the stale edit was applied: %v", ds)
			}
			for _, m := range w.seen {
				if p, ok := m["params"].(map[string]any); ok && m["method"] == "textDocument/publishDiagnostics" && p["version"] == float64(4) {
					t.Error("version 4 was published")
				}
			}
		})
	}
}

// TestTranscriptBadInput: malformed JSON, a batch, an invalid request, an
// unknown method, invalid UTF-8, a header without Content-Length (binary):
// each is answered where JSON-RPC says so, and the server keeps working.
// Exit without shutdown: exit code 1.
func TestTranscriptBadInput(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := tr.start(t)
			w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`)
			r := w.await("a parse error", func(m map[string]any) bool { return errCode(m) == -32700 })
			if r["id"] != nil {
				t.Errorf("parse error id %v, want null", r["id"])
			}
			w.send(initialize)
			w.response(1)
			w.send(`[{"jsonrpc":"2.0","id":2,"method":"shutdown"}]`)
			if r := w.await("a batch rejection", func(m map[string]any) bool { return errCode(m) == -32600 && m["id"] == nil }); r == nil {
				t.Error("batch accepted")
			}
			w.send(`{"id":3,"method":"shutdown"}`)
			if r := w.response(3); errCode(r) != -32600 {
				t.Errorf("request without jsonrpc: %v", r)
			}
			w.send(`{"jsonrpc":"2.0","id":4,"method":"tilels/nope","params":{}}`)
			if r := w.response(4); errCode(r) != -32601 {
				t.Errorf("unknown method: %v", r)
			}
			w.send(`{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/k.py"},"position":{"line":"x"}}}`)
			if r := w.response(5); errCode(r) != -32602 {
				t.Errorf("bad params: %v", r)
			}
			if w.raw != nil {
				io.WriteString(w.raw, "X-Nonsense: 1\r\n\r\n")
			}
			w.send("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"file:///w/u.py\",\"languageId\":\"python\",\"version\":1,\"text\":\"x = 1\\n\xff\xfe = 2\\n\"}}}")
			d := w.diagnostics(1)
			if ds := d["params"].(map[string]any)["diagnostics"].([]any); len(ds) == 0 {
				t.Error("no diagnostic for invalid UTF-8")
			}
			w.send(didOpen("file:///w/k.py", 1, roundtripSrc))
			w.send(hoverReq(6, "file:///w/k.py", 14, 13))
			if b, _ := json.Marshal(w.response(6)["result"]); !bytes.Contains(b, []byte("vec_auto")) {
				t.Errorf("hover after bad input: %s", b)
			}
			w.send(`{"jsonrpc":"2.0","method":"exit"}`)
			if code := w.exit(); code != 1 {
				t.Errorf("exit without shutdown: code %d, want 1", code)
			}
		})
	}
}

// TestBinaryEOF: the client going away without exit ends the server with 1.
func TestBinaryEOF(t *testing.T) {
	cmd := exec.Command(tilelsBinary(t), "serve")
	cmd.Stdin = strings.NewReader(string(frame(initialize)))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("exit code %d (%v), want 1", cmd.ProcessState.ExitCode(), err)
	}
	if out.Len() > 0 && !strings.HasPrefix(out.String(), "Content-Length: ") {
		t.Errorf("stdout carries something other than LSP frames: %q", out.String())
	}
	if !strings.Contains(errb.String(), "language server started") {
		t.Errorf("stderr: %q", errb.String())
	}
}

func frame(js string) []byte { return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(js), js)) }

// withoutVirtualEnv is the test's environment without VIRTUAL_ENV: the
// server must not read the developer's activated environment.
func withoutVirtualEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VIRTUAL_ENV=") {
			env = append(env, kv)
		}
	}
	return env
}
