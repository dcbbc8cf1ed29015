package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// BenchmarkKeystrokePublishStdio is BenchmarkKeystrokePublish against the
// tilels binary over stdio with a client that only looks for the
// publishDiagnostics of the edit's version in the raw frames: the latency
// an editor sees, without the in-process test client's own decoding of
// every diagnostic (go.lsp.dev's decoder allocated about 47 MB per
// publish of a 30,000-line file's 348 diagnostics, most of the in-process
// figure at that size).
func BenchmarkKeystrokePublishStdio(b *testing.B) {
	for _, lines := range []int{3000, 30000} {
		for _, kind := range []string{"keystroke", "comment"} {
			b.Run(fmt.Sprintf("%s-%d", kind, lines), func(b *testing.B) {
				benchKeystrokeStdio(b, kind, lines)
			})
		}
	}
}

func benchKeystrokeStdio(b *testing.B, kind string, lines int) {
	src := corpus(b, lines)
	type edit struct {
		line, c0, c1 int
		text         string
	}
	var edits [2]edit
	switch kind {
	case "keystroke":
		ls := strings.Split(src, "\n")
		row := len(ls) / 2
		for !strings.Contains(ls[row], "Tx.") {
			row++
		}
		col := strings.Index(ls[row], "Tx.")
		edits = [2]edit{{row, col, col, " "}, {row, col, col + 1, ""}}
	case "comment":
		src = "# header\n" + src
		edits = [2]edit{{0, 1, 1, "x"}, {0, 1, 2, ""}}
	}
	cmd := exec.Command(tilelsBinary(b))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	fs := jsonrpc2.NewHeaderStream(pipes{stdout, stdin, stdin}).(frameStream)
	ctx := context.Background()
	send := func(v any) {
		data, _ := json.Marshal(v)
		if _, err := fs.WriteFrame(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
	const u = "file:///w/big.py"
	// wait reads frames until the publishDiagnostics of version v.
	wantMethod := []byte(`"textDocument/publishDiagnostics"`)
	wait := func(v int) {
		want := []byte(fmt.Sprintf(`"version":%d`, v))
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			frame, _, err := fs.ReadFrame(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(frame, wantMethod) && bytes.Contains(frame, want) {
				return
			}
		}
		b.Fatalf("no diagnostics for version %d", v)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}})
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": u, "languageId": "python", "version": 1, "text": src}}})
	wait(1)
	version := 1
	var lat []time.Duration
	for b.Loop() {
		version++
		e := edits[version%2]
		start := time.Now()
		send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
			"textDocument": map[string]any{"uri": u, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{
				"start": map[string]int{"line": e.line, "character": e.c0},
				"end":   map[string]int{"line": e.line, "character": e.c1}}, "text": e.text}}}})
		wait(version)
		lat = append(lat, time.Since(start))
	}
	percentiles(b, lat)
}
