package lsp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// TestFrameLimiter: frames within the limit pass unchanged, a larger one
// becomes the droppedMessage notification, and jsonrpc2 reads the result
// as the same sequence of messages.
func TestFrameLimiter(t *testing.T) {
	small := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	big := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"` + strings.Repeat("x", 5000) + `"}}`
	last := `{"jsonrpc":"2.0","method":"exit"}`
	in := string(frame(small)) + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + string(frame(big)) + string(frame(last))
	stream := jsonrpc2.NewHeaderStream(rw{newFrameLimiter(strings.NewReader(in), 1000), io.Discard})
	var got []string
	for {
		msg, _, err := stream.Read(context.Background())
		if err != nil {
			break
		}
		switch m := msg.(type) {
		case *jsonrpc2.Call:
			got = append(got, m.Method()+" "+string(m.Params()))
		case *jsonrpc2.Notification:
			got = append(got, m.Method()+" "+string(m.Params()))
		}
	}
	want := []string{
		"initialize {}",
		fmt.Sprintf(`%s {"bytes":%d,"limit":1000}`, droppedMethod, len(big)),
		"exit ",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("messages:\n%q\nwant\n%q", got, want)
	}
	// The skipped body is never held: reading through the limiter with a
	// small buffer allocates far less than the frame.
	huge := string(frame(`{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("y", 8<<20) + `"}`))
	r := newFrameLimiter(strings.NewReader(huge), 1000)
	var out bytes.Buffer
	allocs := testing.AllocsPerRun(1, func() {
		out.Reset()
		r = newFrameLimiter(strings.NewReader(huge), 1000)
		_, _ = io.Copy(&out, r)
	})
	if out.Len() > 200 || allocs > 100 {
		t.Errorf("limiter output %d bytes, %v allocations", out.Len(), allocs)
	}
}

// TestDroppedMessage: the server tells the user about a dropped message.
func TestDroppedMessage(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	c.allowErrors = false
	if err := c.conn.Notify(context.Background(), droppedMethod, map[string]int64{"bytes": 100 << 20, "limit": maxFrameBytes}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		n := len(c.messages)
		var m string
		if n > 0 {
			m = c.messages[n-1]
		}
		c.mu.Unlock()
		if strings.Contains(m, "104857600 bytes") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("no message to the user about the dropped message")
}
