package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
)

// frameStream is a jsonrpc2.Stream that also reads and writes raw frames
// (the header and channel streams of jsonrpc2 do; the connection uses
// these methods when present).
type frameStream interface {
	jsonrpc2.Stream
	ReadFrame(ctx context.Context) ([]byte, int64, error)
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

// robustStream answers malformed frames itself instead of letting them
// end the connection (jsonrpc2 treats a frame it cannot decode as a
// transport error): invalid JSON gets a -32700 Parse error response and
// a JSON value that is not a JSON-RPC message (or a batch, which LSP does
// not use) a -32600 Invalid Request response, both with the request's id
// when it can be read and null otherwise, as JSON-RPC 2.0 specifies. A
// header block without a usable Content-Length is skipped. Then the next
// frame is read.
type robustStream struct {
	frameStream
	log *slog.Logger
}

// maxBadHeaders bounds consecutive unusable header blocks before the
// stream is given up as unsynchronizable.
const maxBadHeaders = 64

func newRobustStream(s jsonrpc2.Stream, log *slog.Logger) jsonrpc2.Stream {
	fs, ok := s.(frameStream)
	if !ok {
		return s
	}
	return &robustStream{frameStream: fs, log: log}
}

// ReadFrame returns the next well-formed JSON-RPC frame.
func (s *robustStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	bad := 0
	for {
		frame, n, err := s.frameStream.ReadFrame(ctx)
		if errors.Is(err, jsonrpc2.ErrInvalidHeader) && bad < maxBadHeaders {
			bad++
			s.log.Warn("skipped a message header without a valid Content-Length")
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		if _, derr := jsonrpc2.DecodeMessage(frame); derr != nil {
			s.reject(ctx, frame, derr)
			continue
		}
		return frame, n, nil
	}
}

// Read is ReadFrame plus decoding, for callers that read messages.
func (s *robustStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frame, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(frame)
	return msg, n, err
}

// reject answers a frame that is not a JSON-RPC message.
func (s *robustStream) reject(ctx context.Context, frame []byte, derr error) {
	code, msg := jsonrpc2.InvalidRequest, "invalid request: not a JSON-RPC 2.0 message"
	trimmed := bytes.TrimSpace(frame)
	switch {
	case !json.Valid(frame):
		code, msg = jsonrpc2.ParseError, "parse error: the message is not valid JSON"
	case len(trimmed) > 0 && trimmed[0] == '[':
		msg = "invalid request: batches are not supported by the language server protocol"
	}
	id := json.RawMessage("null")
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if code == jsonrpc2.InvalidRequest && json.Unmarshal(frame, &env) == nil && len(env.ID) > 0 {
		switch env.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			id = env.ID
		}
	}
	s.log.Warn("rejected a malformed message", "code", int(code), "err", derr, "bytes", len(frame))
	resp, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{int(code), msg}})
	if err == nil {
		_, err = s.frameStream.WriteFrame(ctx, resp)
	}
	if err != nil {
		s.log.Warn("could not answer a malformed message", "err", err)
	}
}
