package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
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
	fs := startStdio(b, tilelsBinary(b))
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
	// Nothing else before the initialize result (the protocol's rule: the
	// server drops what comes earlier).
	for {
		frame, _, err := fs.ReadFrame(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(frame, []byte(`"id":1,`)) {
			break
		}
	}
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

// BenchmarkKeystrokeProductionStdio is BenchmarkKeystrokeProduction/file
// against the tilels binary over stdio ($TILELS_BENCH_BINARY, else one
// built from this tree): the latency an editor sees, the editor in
// another process, so that the server's analysis does not delay the
// client's goroutines as it does the in-process client's (on 2 cores a
// notification woken behind a CPU-bound analysis waited up to a
// scheduler slice per hop). p50-ms and p99-ms: the keystroke's first
// publish (a preview for a def with many cases); complete-*: its last
// publish, after the complete analysis. The next keystroke comes then.
// With $TILELS_BENCH_GAP_MS set, keystrokes come that many ms apart
// whatever the server does (typing), and p50-ms and p99-ms are each
// keystroke's time to the first publish of its version or a newer one.
func BenchmarkKeystrokeProductionStdio(b *testing.B) {
	path := os.Getenv("TILELS_BENCH_FILE")
	if path == "" {
		b.Skip("set TILELS_BENCH_FILE to a TIRx file")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	bin := os.Getenv("TILELS_BENCH_BINARY")
	if bin == "" {
		bin = tilelsBinary(b)
	}
	row, col := middleTxCall(b, string(src))
	fs := startStdio(b, bin)
	ctx := context.Background()
	type frame struct {
		data []byte
		at   time.Time
	}
	frames := make(chan frame, 1024)
	go func() {
		defer close(frames)
		for {
			data, _, err := fs.ReadFrame(ctx)
			if err != nil {
				return
			}
			// ReadFrame's slice is its buffer, reused by the next read.
			frames <- frame{bytes.Clone(data), time.Now()}
		}
	}()
	send := func(v any) {
		data, _ := json.Marshal(v)
		if _, err := fs.WriteFrame(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
	u := string(uri.File(abs))
	wantMethod := []byte(`"textDocument/publishDiagnostics"`)
	isPublish := func(f frame, v int) bool {
		return bytes.Contains(f.data, wantMethod) && bytes.Contains(f.data, []byte(fmt.Sprintf(`"version":%d`, v)))
	}
	// settle reads frames until the first publish of version v; then it
	// asks for the code actions of the first line, which the server
	// answers once v is analysed completely (document.await), and reads
	// on until the server has been quiet for 20 ms. It returns the times
	// of the first and the last publish of v.
	id := 1
	settle := func(v int) (first, last time.Time) {
		deadline := time.After(60 * time.Second)
		next := func() frame {
			select {
			case f, ok := <-frames:
				if !ok {
					b.Fatal("the server stopped")
				}
				return f
			case <-deadline:
				b.Fatalf("no complete diagnostics for version %d", v)
			}
			return frame{}
		}
		for first.IsZero() {
			if f := next(); isPublish(f, v) {
				first, last = f.at, f.at
			}
		}
		id++
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "textDocument/codeAction", "params": map[string]any{
			"textDocument": map[string]any{"uri": u},
			"range":        map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}},
			"context":      map[string]any{"diagnostics": []any{}}}})
		answer := []byte(fmt.Sprintf(`"id":%d`, id))
		for answered := false; !answered; {
			f := next()
			if isPublish(f, v) {
				last = f.at
			}
			answered = !bytes.Contains(f.data, []byte(`"method"`)) && bytes.Contains(f.data, answer)
		}
		for {
			select {
			case f, ok := <-frames:
				if !ok {
					b.Fatal("the server stopped")
				}
				if isPublish(f, v) {
					last = f.at
				}
			case <-time.After(20 * time.Millisecond):
				return first, last
			}
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}})
	// Nothing else before the initialize result (the protocol's rule: the
	// server drops what comes earlier).
	for f := range frames {
		if bytes.Contains(f.data, []byte(`"id":1,`)) {
			break
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": u, "languageId": "python", "version": 1, "text": string(src)}}})
	settle(1)
	version := 1
	keystroke := func() time.Time {
		version++
		c0, c1, text := col, col, " "
		if version%2 == 1 {
			c1, text = col+1, ""
		}
		start := time.Now()
		send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
			"textDocument": map[string]any{"uri": u, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{
				"start": map[string]int{"line": row, "character": c0},
				"end":   map[string]int{"line": row, "character": c1}}, "text": text}}}})
		return start
	}
	if gap, _ := strconv.Atoi(os.Getenv("TILELS_BENCH_GAP_MS")); gap > 0 {
		// Typing: a keystroke every gap ms whatever the server does; a
		// keystroke's latency is the time to the first publish of its
		// version or a newer one (a newer keystroke may cancel its
		// analysis: its diagnostics are then the newer one's).
		type pub struct {
			at time.Time
			v  int
		}
		var mu sync.Mutex
		var pubs []pub
		done := make(chan struct{})
		go func() {
			defer close(done)
			for f := range frames {
				if !bytes.Contains(f.data, wantMethod) {
					continue
				}
				if i := bytes.Index(f.data, []byte(`"version":`)); i >= 0 {
					v, _ := strconv.Atoi(string(bytes.TrimRight(f.data[i+10:i+10+bytes.IndexAny(f.data[i+10:], ",}")], " ")))
					mu.Lock()
					pubs = append(pubs, pub{f.at, v})
					mu.Unlock()
				}
			}
		}()
		var sent []time.Time
		first := version + 1
		for b.Loop() {
			sent = append(sent, keystroke())
			time.Sleep(time.Duration(gap) * time.Millisecond)
		}
		time.Sleep(time.Second) // the last version's analysis
		mu.Lock()
		var lat []time.Duration
		for i, at := range sent {
			best := time.Duration(-1)
			for _, p := range pubs {
				if p.v >= first+i && !p.at.Before(at) && (best < 0 || p.at.Sub(at) < best) {
					best = p.at.Sub(at)
				}
			}
			if best < 0 {
				b.Fatalf("no diagnostics for keystroke %d or a later one", i)
			}
			lat = append(lat, best)
		}
		mu.Unlock()
		percentiles(b, lat)
		return
	}
	var lat, full []time.Duration
	for b.Loop() {
		start := keystroke()
		first, last := settle(version)
		lat = append(lat, first.Sub(start))
		full = append(full, last.Sub(start))
	}
	percentiles(b, lat)
	slices.Sort(full)
	b.ReportMetric(float64(full[len(full)/2].Microseconds())/1000, "complete-p50-ms")
	b.ReportMetric(float64(full[int(0.99*float64(len(full)-1))].Microseconds())/1000, "complete-p99-ms")
}

// startStdio starts the language server bin and returns the frame
// stream of its stdin and stdout; the server is killed when b ends.
func startStdio(b *testing.B, bin string) frameStream {
	cmd := exec.Command(bin)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return jsonrpc2.NewHeaderStream(pipes{stdout, stdin, stdin}).(frameStream)
}
