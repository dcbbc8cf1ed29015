package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"go.lsp.dev/protocol"
)

// maxFrameBytes bounds one JSON-RPC message from the client. jsonrpc2
// accepts frames up to 1 GiB and allocates the body before decoding it; a
// document over maxDocumentBytes is not analysed anyway, and its didOpen
// or didChange, JSON-escaped, stays below this limit unless the text is
// mostly escapes.
const maxFrameBytes = 64 << 20

// droppedMethod is the notification that stands in for a message over
// maxFrameBytes: the server logs it and tells the user.
const droppedMethod = "$/tilels/droppedMessage"

// frameLimiter is the byte stream from the client with every message over
// limit replaced by a droppedMethod notification: it reads LSP header
// blocks itself, passes a frame within the limit through unchanged
// (header and body, streamed), and skips the body of a larger one without
// holding it. A header block it cannot read is passed through for
// jsonrpc2 to reject.
type frameLimiter struct {
	in      *bufio.Reader
	limit   int64
	pending []byte // header bytes (or a substitute frame) still to return
	body    int64  // body bytes of the current frame still to pass through
	err     error
}

func newFrameLimiter(r io.Reader, limit int64) *frameLimiter {
	return &frameLimiter{in: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

func (f *frameLimiter) Read(p []byte) (int, error) {
	for {
		if len(f.pending) > 0 {
			n := copy(p, f.pending)
			f.pending = f.pending[n:]
			return n, nil
		}
		if f.body > 0 {
			if int64(len(p)) > f.body {
				p = p[:f.body]
			}
			n, err := f.in.Read(p)
			f.body -= int64(n)
			return n, err
		}
		if f.err != nil {
			return 0, f.err
		}
		f.next()
	}
}

// next reads one header block into pending and sets body, or replaces an
// oversized frame by the substitute notification.
func (f *frameLimiter) next() {
	var header bytes.Buffer
	length := int64(-1)
	for {
		line, err := f.in.ReadSlice('\n')
		header.Write(line)
		if err != nil {
			if err == bufio.ErrBufferFull {
				// An absurdly long header line: not ours to judge.
				continue
			}
			f.pending, f.err = header.Bytes(), err
			return
		}
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			break
		}
		if name, value, ok := bytes.Cut(trimmed, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			if n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64); err == nil && n >= 0 {
				length = n
			}
		}
	}
	if length <= f.limit {
		f.pending = header.Bytes()
		f.body = max(length, 0)
		return
	}
	if _, err := io.CopyN(io.Discard, f.in, length); err != nil {
		f.err = err
		return
	}
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"bytes":%d,"limit":%d}}`, droppedMethod, length, f.limit)
	f.pending = fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(msg), msg)
}

// dropped reports a message the frameLimiter left out.
func (s *Server) dropped(ctx context.Context, params []byte) {
	var p struct{ Bytes, Limit int64 }
	_ = json.Unmarshal(params, &p)
	msg := fmt.Sprintf("tilels: ignored a message of %d bytes from the editor (the limit is %d bytes); a document that large is not analysed", p.Bytes, p.Limit)
	s.log.Warn("dropped an oversized message", "bytes", p.Bytes, "limit", p.Limit)
	s.notify("showMessage", s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg}))
}
