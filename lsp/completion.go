package lsp

import (
	"context"
	"encoding/json"
	"unicode/utf16"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/assist"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/release"
)

// Completion answers textDocument/completion from the newest text and the
// last complete snapshot (assist.Complete computes the items; this only
// converts them).
func (s *Server) Completion(ctx context.Context, p *protocol.CompletionParams) (protocol.CompletionResult, error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	v, err := d.readView(ctx)
	if err != nil {
		return nil, err
	}
	off := v.cur.m.Offset(p.Position)
	l := assist.Complete(v.cur.src, off, assistEnv(v))
	if l == nil || len(l.Items) == 0 {
		return nil, nil
	}
	rng := protocol.Range{Start: v.cur.m.Position(int(l.Replace.Start)), End: v.cur.m.Position(int(l.Replace.End))}
	caps := s.caps.Load()
	md := caps.markdownHover
	items := make(protocol.CompletionItemSlice, len(l.Items))
	for i, it := range l.Items {
		items[i] = protocol.CompletionItem{
			Label:    it.Label,
			Kind:     completionKind(it.Kind),
			Detail:   protocol.NewOptional(it.Detail),
			TextEdit: &protocol.TextEdit{Range: rng, NewText: it.Label},
		}
		// The documentation of the namespace lists (36 ops with their
		// parameters) only on completionItem/resolve, where the client
		// resolves: sent with the list it made BenchmarkCompletion3000
		// carry 530 kB per request.
		if it.Ref != "" && caps.completionResolve {
			items[i].Data = mustJSON(it.Ref)
		} else {
			items[i].Documentation = markup(it.Doc, md)
		}
		if it.Sort != "" {
			items[i].SortText = protocol.NewOptional(it.Sort)
		}
		if it.Preselect {
			items[i].Preselect = protocol.NewOptional(true)
		}
	}
	return &protocol.CompletionList{Items: items}, nil
}

// CompletionResolve adds the documentation of an item sent without it.
func (s *Server) CompletionResolve(ctx context.Context, it *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	var ref string
	if len(it.Data) == 0 || json.Unmarshal(it.Data, &ref) != nil {
		return it, nil
	}
	if doc, ok := assist.ResolveDoc(ref); ok {
		it.Documentation = markup(doc, s.caps.Load().markdownHover)
	}
	return it, nil
}

// assistEnv is what assist needs of a view: the analysed release, the
// snapshot and the map from the newest text to it.
func assistEnv(v *view) assist.Env {
	env := assist.Env{Release: release.Newest}
	if v.snap != nil {
		env.Release = v.snap.low.Reference.Release
		env.Snap = v.snap.low
		env.SnapPos = func(off int) (source.Pos, bool) { return v.snapPos(v.cur.m.Position(off)) }
	}
	return env
}

func completionKind(k assist.ItemKind) protocol.CompletionItemKind {
	switch k {
	case assist.KindScope:
		return protocol.CompletionItemKindModule
	case assist.KindOp, assist.KindFunction:
		return protocol.CompletionItemKindFunction
	case assist.KindClass:
		return protocol.CompletionItemKindClass
	case assist.KindAxis, assist.KindConstant:
		return protocol.CompletionItemKindConstant
	case assist.KindVariant:
		return protocol.CompletionItemKindEnumMember
	case assist.KindBufferScope:
		return protocol.CompletionItemKindValue
	case assist.KindKeyword:
		return protocol.CompletionItemKindProperty
	}
	return protocol.CompletionItemKindText
}

// markup is Markdown documentation, or plain text for a client that
// shows no Markdown.
func markup(s string, md bool) protocol.InlayHintTooltip {
	if s == "" {
		return nil
	}
	if md {
		return &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: s}
	}
	return &protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: s}
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) uint32 {
	n := 0
	for _, r := range s {
		n += len(utf16.AppendRune(nil, r))
	}
	return uint32(n)
}
