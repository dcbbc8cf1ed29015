package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/lower"
)

// Options configure a server.
type Options struct {
	// Log receives the server's log (text lines); nil means os.Stderr.
	// It is never the protocol stream.
	Log io.Writer
	// LogLevel is the least severe level logged (slog.LevelInfo when zero).
	LogLevel slog.Level
	// Version is reported in serverInfo.
	Version string
	// Reference is the reference release used while the client's
	// tilels.reference setting is auto (tilels --lsp --reference 0.25);
	// empty: automatic.
	Reference string
	// Getenv reads the environment ($VIRTUAL_ENV); nil: os.Getenv.
	Getenv func(string) string

	// Test seams: called (when set) before each request's handler and
	// before each analysis, and when a document's worker stops (it has
	// nothing left to analyse).
	hookRequest func(method string)
	hookAnalyze func()
	hookIdle    func()
	// hookPublished is called after each publish of a version's complete
	// diagnostics (not after a preview: publishPreview) with the number of
	// publishDiagnostics sent for the document so far, previews included.
	hookPublished func(u uri.URI, version int32, sent int)
	// hookServer receives the server Serve made (state checks).
	hookServer func(*Server)
}

// lifecycle states (LSP "Server lifecycle").
const (
	stateNew int32 = iota
	stateRunning
	stateShutdown
)

// Server is one language-server session over one connection.
type Server struct {
	protocol.UnimplementedServer

	log     *slog.Logger
	version string

	conn   jsonrpc2.Conn
	client protocol.Client
	// ctx lives as long as the connection; analyses and server-to-client
	// calls run under it.
	ctx    context.Context
	cancel context.CancelFunc

	state atomic.Int32
	caps  atomic.Pointer[clientCaps]
	conf  atomic.Pointer[Settings]
	// base is what a setting the client's configuration leaves out (or a
	// null section) falls back to: the initializationOptions over the
	// defaults.
	base atomic.Pointer[Settings]
	// Settings updates are numbered when they start (confAsked) and an
	// update older than the last one applied (confApplied, under confMu)
	// is dropped: two workspace/configuration pulls in flight (the initial
	// one and a didChangeConfiguration's) may be answered and applied in
	// either order, and the older answer must not win.
	confAsked   atomic.Uint64
	confMu      sync.Mutex
	confApplied uint64

	mu   sync.Mutex
	docs map[uri.URI]*document
	// folders are the workspace folders, resolved (workspace.go): the
	// only places the server reads sources from or writes files to.
	folders []string
	// views are the tilels-lowered documents served, by the source URI
	// they show (refreshed when the source changes).
	views map[uri.URI]map[uri.URI]bool

	exitOnce sync.Once
	exit     chan int

	// analyses bounds the analyses running at once (one per core): opening
	// many documents together analyses them a few at a time instead of
	// all at once, which bounds the peak memory (each whole-file analysis
	// of a 3,000-line file allocates about 11 MB).
	analyses chan struct{}

	hookRequest   func(method string) // see Options
	hookAnalyze   func()
	hookIdle      func()
	hookPublished func(u uri.URI, version int32, sent int)

	keep retention // which documents keep their analysis (retention.go)

	// opts keeps the server options that shape analyses (Reference,
	// Getenv).
	opts Options
	// inst remembers the apache-tvm found per list of Python
	// environments (imports.go installed).
	instMu sync.Mutex
	inst   map[string]lower.Installed

	mach machines // machine code (machine.go)
}

func newServer(opts Options) *Server {
	w := opts.Log
	if w == nil {
		w = os.Stderr
	}
	s := &Server{
		log:      slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: opts.LogLevel})),
		version:  opts.Version,
		docs:     map[uri.URI]*document{},
		views:    map[uri.URI]map[uri.URI]bool{},
		exit:     make(chan int, 1),
		analyses: make(chan struct{}, max(1, runtime.GOMAXPROCS(0))),

		hookRequest:   opts.hookRequest,
		hookAnalyze:   opts.hookAnalyze,
		hookIdle:      opts.hookIdle,
		hookPublished: opts.hookPublished,
		opts:          opts,
	}
	s.caps.Store(&clientCaps{})
	s.conf.Store(defaultSettings())
	return s
}

// Serve runs a server on stream until the client sends exit or the stream
// ends, and returns the process exit code the LSP specification asks for:
// 0 after shutdown and exit, 1 otherwise.
func Serve(ctx context.Context, stream jsonrpc2.Stream, opts Options) int {
	s := newServer(opts)
	if opts.hookServer != nil {
		opts.hookServer(s)
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	defer s.cancel()
	conn := jsonrpc2.NewConn(newRobustStream(stream, s.log), jsonrpc2.WithCodec(codec{}))
	s.conn = conn
	s.client = protocol.ClientDispatcher(conn)
	s.log.Info("tilels language server started", "version", s.version)
	conn.Go(s.ctx, s.handler())
	code := 1
	select {
	case code = <-s.exit:
	case <-conn.Done():
		if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) {
			s.log.Warn("connection ended", "err", err)
		}
	case <-ctx.Done():
	}
	s.cancel()
	s.closeAll()
	// Close waits for the read loop, which may be blocked reading a stream
	// that cannot be interrupted (standard input): wait a little, then let
	// the caller exit anyway.
	closed := make(chan struct{})
	go func() {
		conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(200 * time.Millisecond):
	}
	return code
}

// ServeStream runs a server over a byte stream with LSP header framing
// (Content-Length), e.g. standard input and output.
func ServeStream(ctx context.Context, r io.Reader, w io.Writer, opts Options) int {
	return Serve(ctx, jsonrpc2.NewHeaderStream(rw{newFrameLimiter(r, maxFrameBytes), w}), opts)
}

type rw struct {
	io.Reader
	io.Writer
}

func (rw) Close() error { return nil }

// codec is protocol's payload codec (unexported there), rebuilt from
// protocol.Marshal and Unmarshal, with raw messages passed through.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if m, ok := v.(jsonrpc2.RawMessage); ok {
		return m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(b []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), b...)
		return nil
	}
	return protocol.Unmarshal(b, v)
}

// handler wires the dispatch: $/cancelRequest is seen first; requests are
// released from the read loop (jsonrpc2.Async) after their cancellation is
// registered; notifications stay on the read loop, in order. Errors and
// panics are turned into JSON-RPC errors for requests and into log lines
// for notifications, so neither ends the connection.
func (s *Server) handler() jsonrpc2.Handler {
	typed := protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler)
	inner := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			jsonrpc2.Async(ctx)
		}
		if req.Method() == droppedMethod {
			s.dropped(ctx, req.Params())
			return nil, nil
		}
		if err := s.admit(req); err != nil {
			return nil, err
		}
		if s.hookRequest != nil {
			s.hookRequest(req.Method())
		}
		return typed(ctx, req)
	}
	cancelling := protocol.CancelHandler(inner)
	return func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		call := req.IsCall()
		// The method borrows the frame buffer, which the read loop reuses
		// once a request is released: keep a copy for logs and errors.
		method := strings.Clone(req.Method())
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in handler", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, r)
			}
			if !call {
				res, err = nil, nil
			}
		}()
		res, err = cancelling(ctx, req)
		if err == nil {
			return res, nil
		}
		if !call {
			if !errors.Is(err, jsonrpc2.ErrMethodNotFound) {
				s.log.Warn("notification failed", "method", method, "err", err)
			}
			return nil, nil
		}
		return nil, s.callError(ctx, method, err)
	}
}

// callError maps a request's error to the JSON-RPC error the protocol asks
// for.
func (s *Server) callError(ctx context.Context, method string, err error) error {
	var rpc *jsonrpc2.Error
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return protocol.ErrRequestCancelled
	case errors.Is(err, jsonrpc2.ErrParse):
		// A params decoding failure: the frame itself was valid JSON.
		s.log.Warn("invalid params", "method", method, "err", err)
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %v", method, err)
	case errors.As(err, &rpc):
		return rpc
	}
	return jsonrpc2.Errorf(requestFailed, "%v", err)
}

// requestFailed is LSP's RequestFailed (-32803): a valid request that
// could not be carried out.
const requestFailed jsonrpc2.Code = -32803

// serverNotInitialized is LSP's ServerNotInitialized (-32002).
const serverNotInitialized jsonrpc2.Code = -32002

// admit enforces the lifecycle: before initialize only initialize and
// exit; after shutdown only exit.
func (s *Server) admit(req *jsonrpc2.Request) error {
	m := req.Method()
	if m == protocol.MethodExit {
		return nil
	}
	switch s.state.Load() {
	case stateNew:
		if m == protocol.MethodInitialize {
			return nil
		}
		if req.IsCall() {
			return jsonrpc2.Errorf(serverNotInitialized, "%s before initialize", m)
		}
		return jsonrpc2.ErrMethodNotFound // dropped silently
	case stateShutdown:
		if req.IsCall() {
			return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown", m)
		}
		return jsonrpc2.ErrMethodNotFound
	}
	if m == protocol.MethodInitialize {
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize sent twice")
	}
	return nil
}

// Request answers methods go.lsp.dev does not route: MethodNotFound for
// requests (notifications with unknown methods are ignored by handler).
func (s *Server) Request(ctx context.Context, method string, params any) (any, error) {
	if method == methodOutputRanges { // output_ranges.go
		raw, _ := params.(protocol.LSPAny)
		return s.OutputRanges(ctx, raw)
	}
	if strings.HasPrefix(method, "$/") {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "%s is not supported", method)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
}

// doc returns the open document for u, or nil.
func (s *Server) doc(u uri.URI) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[u]
}

// closeAll stops every document's worker.
func (s *Server) closeAll() {
	s.mu.Lock()
	docs := s.docs
	s.docs = map[uri.URI]*document{}
	s.mu.Unlock()
	for _, d := range docs {
		d.close()
	}
}

// notify sends a server-to-client notification, logging failures.
func (s *Server) notify(what string, err error) {
	if err != nil && s.ctx.Err() == nil {
		s.log.Warn("sending to the client failed", "what", what, "err", err)
	}
}

// background runs f on its own goroutine with panics recovered (for
// server-to-client calls, which must not run on the read loop).
func (s *Server) background(what string, f func(ctx context.Context)) {
	go func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic", "in", what, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			}
		}()
		f(s.ctx)
	}()
}
