package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"
)

// clientCaps are the client capabilities the server acts on, read once
// from initialize.
type clientCaps struct {
	showDocument        bool // window/showDocument
	textDocumentContent bool // workspace/textDocumentContent (LSP 3.18)
	configuration       bool // workspace/configuration
	applyEdit           bool // workspace/applyEdit
	createFiles         bool // CreateFile in documentChanges
	documentChanges     bool // versioned TextDocumentEdits in workspace edits
	inlayHintRefresh    bool
	codeLensRefresh     bool
	codeActionLiterals  bool // CodeAction values (else Commands)
	disabledActions     bool // CodeAction.disabled
	hierarchicalSymbols bool // DocumentSymbol trees (else SymbolInformation)
	markdownHover       bool
	relatedInformation  bool

	// completionResolve: the client resolves a completion item's
	// documentation (completionItem/resolve), so lists go without it.
	completionResolve bool
}

func readCaps(c protocol.ClientCapabilities) *clientCaps {
	cc := &clientCaps{}
	if w := c.Window; w != nil && w.ShowDocument != nil {
		cc.showDocument = w.ShowDocument.Support
	}
	if w := c.Workspace; w != nil {
		cc.textDocumentContent = w.TextDocumentContent != nil
		cc.configuration = w.Configuration != nil && *w.Configuration
		cc.applyEdit = w.ApplyEdit != nil && *w.ApplyEdit
		if e := w.WorkspaceEdit; e != nil {
			cc.documentChanges = e.DocumentChanges != nil && *e.DocumentChanges
			cc.createFiles = e.DocumentChanges != nil && *e.DocumentChanges &&
				slices.Contains(e.ResourceOperations, protocol.ResourceOperationKindCreate)
		}
		cc.inlayHintRefresh = w.InlayHint != nil && w.InlayHint.RefreshSupport != nil && *w.InlayHint.RefreshSupport
		cc.codeLensRefresh = w.CodeLens != nil && w.CodeLens.RefreshSupport != nil && *w.CodeLens.RefreshSupport
	}
	if t := c.TextDocument; t != nil {
		if a := t.CodeAction; a != nil {
			cc.codeActionLiterals = len(a.CodeActionLiteralSupport.CodeActionKind.ValueSet) > 0
			cc.disabledActions = a.DisabledSupport != nil && *a.DisabledSupport
		}
		if sy := t.DocumentSymbol; sy != nil {
			cc.hierarchicalSymbols = sy.HierarchicalDocumentSymbolSupport != nil && *sy.HierarchicalDocumentSymbolSupport
		}
		if c := t.Completion; c != nil && c.CompletionItem != nil {
			cc.completionResolve = slices.Contains(c.CompletionItem.ResolveSupport.Properties, "documentation")
		}
		if h := t.Hover; h != nil {
			cc.markdownHover = slices.Contains(h.ContentFormat, protocol.MarkupKindMarkdown)
		}
		if p := t.PublishDiagnostics; p != nil {
			cc.relatedInformation = p.RelatedInformation != nil && *p.RelatedInformation
		}
	}
	return cc
}

// Commands the server executes (workspace/executeCommand).
const (
	cmdLower       = "tilels.lower"
	cmdWriteCUDA   = "tilels.writeCUDA"
	cmdShowLowered = "tilels.showLowered"
	cmdSelectCase  = "tilels.selectCase"
	cmdPickCase    = "tilels.pickCase"
)

// Initialize answers the initialize request: capabilities, and the
// settings passed as initializationOptions.
func (s *Server) Initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.caps.Store(readCaps(p.Capabilities))
	s.initFolders(p)
	if len(p.InitializationOptions) > 0 {
		if next, err := mergeSettings(defaultSettings(), p.InitializationOptions); err != nil {
			s.log.Warn("ignored initializationOptions", "err", err)
		} else {
			s.conf.Store(next)
			s.base.Store(next)
		}
	}
	s.state.Store(stateRunning)
	info := protocol.ServerInfo{Name: "tilels"}
	if s.version != "" {
		info.Version = protocol.NewOptional(s.version)
	}
	yes := true
	change := protocol.TextDocumentSyncKindIncremental
	caps := protocol.ServerCapabilities{
		PositionEncoding: protocol.PositionEncodingKindUTF16,
		TextDocumentSync: &protocol.TextDocumentSyncOptions{
			OpenClose: &yes,
			Change:    &change,
		},
		HoverProvider:          protocol.Boolean(true),
		DefinitionProvider:     protocol.Boolean(true),
		DocumentSymbolProvider: protocol.Boolean(true),
		CodeActionProvider: &protocol.CodeActionOptions{
			CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindSource},
		},
		CodeLensProvider:       &protocol.CodeLensOptions{},
		InlayHintProvider:      protocol.Boolean(true),
		CompletionProvider:     &protocol.CompletionOptions{TriggerCharacters: []string{".", `"`, "'", "@"}, ResolveProvider: &yes},
		SignatureHelpProvider:  &protocol.SignatureHelpOptions{TriggerCharacters: []string{"(", ",", "="}},
		ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: []string{cmdLower, cmdWriteCUDA, cmdShowLowered, cmdSelectCase, cmdPickCase, cmdKernelSummary, cmdReference, cmdPicture}},
		Workspace: &protocol.WorkspaceOptions{
			WorkspaceFolders:    &protocol.WorkspaceFoldersServerCapabilities{Supported: &yes, ChangeNotifications: protocol.Boolean(true)},
			TextDocumentContent: &protocol.TextDocumentContentOptions{Schemes: []string{loweredScheme}},
		},
	}
	return &protocol.InitializeResult{Capabilities: caps, ServerInfo: info}, nil
}
