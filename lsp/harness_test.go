package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// testClient drives the real server in-process over a channel stream
// pair: full JSON-RPC encoding, the server's own dispatch. It records what
// the server sends (diagnostics, edits to apply, documents to show,
// refreshes) and fails the test when the server logs an error.
type testClient struct {
	t      testing.TB
	conn   jsonrpc2.Conn
	server protocol.Server
	logs   *syncBuffer
	done   chan int
	cancel context.CancelFunc

	mu        sync.Mutex
	diags     map[uri.URI]*protocol.PublishDiagnosticsParams   // the last publication
	versions  map[uri.URI][]int32                              // every published version, in order
	pubs      map[uri.URI][]*protocol.PublishDiagnosticsParams // every publication, in order
	complete  map[uri.URI][2]int                               // the newest version whose complete list was published, and the publications sent until then
	diagCh    chan *protocol.PublishDiagnosticsParams
	settings  json.RawMessage // the answer to workspace/configuration
	pulls     int             // workspace/configuration requests answered
	applied   []*protocol.ApplyWorkspaceEditParams
	shown     []*protocol.ShowDocumentParams
	refreshed []uri.URI
	messages  []string

	allowErrors bool // bad-input tests that expect error logs
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fullCaps is a client with every capability the server uses (an LSP 3.18
// client such as VS Code).
func fullCaps() protocol.ClientCapabilities {
	yes := true
	return protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit:           &yes,
			Configuration:       &yes,
			WorkspaceEdit:       &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &yes, ResourceOperations: []protocol.ResourceOperationKind{protocol.ResourceOperationKindCreate}},
			InlayHint:           &protocol.InlayHintWorkspaceClientCapabilities{RefreshSupport: &yes},
			CodeLens:            &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &yes},
			TextDocumentContent: &protocol.TextDocumentContentClientCapabilities{},
		},
		Window: &protocol.WindowClientCapabilities{ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true}},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Hover:              &protocol.HoverClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.MarkupKindMarkdown}},
			CodeAction:         &protocol.CodeActionClientCapabilities{CodeActionLiteralSupport: protocol.ClientCodeActionLiteralOptions{CodeActionKind: protocol.ClientCodeActionKindOptions{ValueSet: []protocol.CodeActionKind{protocol.CodeActionKindSource}}}, DisabledSupport: &yes},
			DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: &yes},
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{DiagnosticsCapabilities: protocol.DiagnosticsCapabilities{RelatedInformation: &yes}},
		},
	}
}

// startServer starts a server and a client connected to it, without
// initializing.
func startServer(t testing.TB) *testClient { return startServerWith(t, Options{}) }

// startServerWith is startServer with options (test hooks); the log and
// version are the harness's.
func startServerWith(t testing.TB, opts Options) *testClient {
	t.Helper()
	left, right := jsonrpc2.NewChannelStreamPair(64)
	ctx, cancel := context.WithCancel(context.Background())
	c := &testClient{t: t, logs: &syncBuffer{}, done: make(chan int, 1), cancel: cancel,
		diags: map[uri.URI]*protocol.PublishDiagnosticsParams{}, versions: map[uri.URI][]int32{}, pubs: map[uri.URI][]*protocol.PublishDiagnosticsParams{}, diagCh: make(chan *protocol.PublishDiagnosticsParams, 1024)}
	// The harness's documents are written for the seeds' release: a test
	// of the automatic choice passes Reference "auto". The environment is
	// empty, whatever the developer's shell has activated.
	if opts.Reference == "" {
		opts.Reference = "0.25"
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	c.complete = map[uri.URI][2]int{}
	opts.hookPublished = func(u uri.URI, v int32, sent int) {
		c.mu.Lock()
		c.complete[u] = [2]int{int(v), sent}
		c.mu.Unlock()
		select {
		case c.diagCh <- nil: // wake waitDiags
		default:
		}
	}
	go func() {
		opts.Log, opts.LogLevel, opts.Version = c.logs, slog.LevelDebug, "test"
		c.done <- Serve(ctx, left, opts)
	}()
	c.conn = jsonrpc2.NewConn(right, jsonrpc2.WithCodec(codec{}))
	c.server = protocol.ServerDispatcher(c.conn)
	c.conn.Go(ctx, protocol.ClientHandler(&clientImpl{c: c}, jsonrpc2.MethodNotFoundHandler))
	t.Cleanup(func() {
		cancel()
		c.conn.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Error("the server did not stop")
		}
		if !c.allowErrors && strings.Contains(c.logs.String(), "level=ERROR") {
			t.Errorf("the server logged errors:\n%s", c.logs.String())
		}
	})
	return c
}

// newClient starts a server and initializes it with caps.
func newClient(t testing.TB, caps protocol.ClientCapabilities, initOptions string) *testClient {
	t.Helper()
	return initClient(t, startServer(t), caps, initOptions)
}

// newClientIn is newClient with workspace folders (directories): the only
// places the server reads sources from and writes .cu files to.
func newClientIn(t testing.TB, caps protocol.ClientCapabilities, initOptions string, folders ...string) *testClient {
	t.Helper()
	return initClient(t, startServer(t), caps, initOptions, folders...)
}

func initClient(t testing.TB, c *testClient, caps protocol.ClientCapabilities, initOptions string, folders ...string) *testClient {
	t.Helper()
	p := &protocol.InitializeParams{Capabilities: caps}
	if len(folders) > 0 {
		var ws []protocol.WorkspaceFolder
		for _, f := range folders {
			ws = append(ws, protocol.WorkspaceFolder{URI: uri.File(f), Name: f})
		}
		p.WorkspaceFolders = protocol.NewNullable(ws)
	}
	if initOptions != "" {
		p.InitializationOptions = protocol.LSPAny(initOptions)
	}
	res, err := c.server.Initialize(context.Background(), p)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Name != "tilels" {
		t.Fatalf("serverInfo %+v", res.ServerInfo)
	}
	if err := c.server.Initialized(context.Background(), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *testClient) open(u uri.URI, version int32, text string) {
	c.t.Helper()
	err := c.server.DidOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "python", Version: version, Text: text}})
	if err != nil {
		c.t.Fatal(err)
	}
}

func (c *testClient) change(u uri.URI, version int32, changes ...protocol.TextDocumentContentChangeEvent) {
	c.t.Helper()
	err := c.server.DidChange(context.Background(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: changes,
	})
	if err != nil {
		c.t.Fatal(err)
	}
}

// waitDiags waits for the complete diagnostics of u at version (the last
// ones published for it; a preview before them does not count), failing
// after a timeout.
func (c *testClient) waitDiags(u uri.URI, version int32) *protocol.PublishDiagnosticsParams {
	c.t.Helper()
	return c.waitPublished(u, version, true)
}

// waitFirstDiags is waitDiags that returns at the version's first
// publication, a preview or the complete list (publishPreview).
func (c *testClient) waitFirstDiags(u uri.URI, version int32) *protocol.PublishDiagnosticsParams {
	c.t.Helper()
	return c.waitPublished(u, version, false)
}

func (c *testClient) waitPublished(u uri.URI, version int32, complete bool) *protocol.PublishDiagnosticsParams {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		last := c.diags[u]
		// Complete: the server published the version's complete list,
		// and the client has received every publication sent until then.
		done := !complete || c.complete[u][0] >= int(version) && len(c.pubs[u]) >= c.complete[u][1]
		c.mu.Unlock()
		if last != nil && done {
			if v, ok := last.Version.Get(); ok && v == version {
				return last
			}
		}
		select {
		case <-c.diagCh:
		case <-deadline:
			c.t.Fatalf("no diagnostics for %s version %d\nlog:\n%s", u, version, c.logs.String())
			return nil
		}
	}
}

func (c *testClient) hover(u uri.URI, p protocol.Position) *protocol.Hover {
	c.t.Helper()
	h, err := c.server.Hover(context.Background(), &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: p}})
	if err != nil {
		c.t.Fatalf("hover: %v", err)
	}
	return h
}

// call sends a raw request and returns its raw result (for methods and
// parameters the typed dispatcher cannot express).
func (c *testClient) call(method string, params any) (json.RawMessage, error) {
	var res json.RawMessage
	_, err := c.conn.Call(context.Background(), method, params, &res)
	return res, err
}

func hoverValue(h *protocol.Hover) string {
	if h == nil {
		return ""
	}
	if m, ok := h.Contents.(*protocol.MarkupContent); ok {
		return m.Value
	}
	return ""
}

// clientImpl answers the server's requests and records its notifications.
type clientImpl struct {
	protocol.UnimplementedClient
	c *testClient
}

func (ci *clientImpl) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c := ci.c
	c.mu.Lock()
	c.diags[p.URI] = p
	v, _ := p.Version.Get()
	c.versions[p.URI] = append(c.versions[p.URI], v)
	c.pubs[p.URI] = append(c.pubs[p.URI], p)
	c.mu.Unlock()
	select {
	case c.diagCh <- p:
	default:
	}
	return nil
}

func (ci *clientImpl) Configuration(_ context.Context, p *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	ci.c.mu.Lock()
	defer ci.c.mu.Unlock()
	ci.c.pulls++
	out := make([]protocol.LSPAny, len(p.Items))
	for i := range out {
		out[i] = protocol.LSPAny("null")
		if len(ci.c.settings) > 0 {
			out[i] = protocol.LSPAny(ci.c.settings)
		}
	}
	return out, nil
}

func (ci *clientImpl) ApplyEdit(_ context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	ci.c.mu.Lock()
	defer ci.c.mu.Unlock()
	ci.c.applied = append(ci.c.applied, p)
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

func (ci *clientImpl) ShowDocument(_ context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	ci.c.mu.Lock()
	defer ci.c.mu.Unlock()
	ci.c.shown = append(ci.c.shown, p)
	return &protocol.ShowDocumentResult{Success: true}, nil
}

func (ci *clientImpl) TextDocumentContentRefresh(_ context.Context, p *protocol.TextDocumentContentRefreshParams) error {
	ci.c.mu.Lock()
	defer ci.c.mu.Unlock()
	ci.c.refreshed = append(ci.c.refreshed, p.URI)
	return nil
}

func (ci *clientImpl) InlayHintRefresh(context.Context) error { return nil }
func (ci *clientImpl) CodeLensRefresh(context.Context) error  { return nil }

func (ci *clientImpl) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	ci.c.mu.Lock()
	defer ci.c.mu.Unlock()
	ci.c.messages = append(ci.c.messages, p.Message)
	return nil
}

func (ci *clientImpl) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }
