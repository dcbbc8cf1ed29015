package lsp

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/lower"
)

// CodeAction offers "Write lowered CUDA to <name>.cu" (the whole file)
// and, inside a kernel, the same for that kernel alone, each kernel def
// in its selected case (the title names it: "(case 2/4)"): a workspace edit
// that creates the file beside the source, so the editor can undo it. A
// client that cannot create files through edits gets the tilels.writeCUDA
// command instead; one without code action literals gets bare commands.
// With error diagnostics in the file the action is disabled (or left out
// where the client cannot show disabled actions).
//
// Before them come the quick fixes lower computes
// (lower.Snapshot.DispatchFixes): a `dispatch=` name the release does not
// register renamed to the name it registers ("gmem_smem" -> "vec_auto"
// under 0.27), where the range touches the name; after them, for a file
// whose release was chosen automatically, "Pin this file to apache-tvm
// 0.27" (lower.Snapshot.PinFix), which appends `# tilels: reference=0.27`.
func (s *Server) CodeAction(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	out := []protocol.CommandOrCodeAction{}
	quick, src := kindsWanted(p.Context.Only)
	if !quick && !src {
		return out, nil
	}
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return out, nil
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	out = append(out, s.fixActions(d, snap, p.Range, quick, false)...)
	if !src {
		return out, nil
	}
	out = s.writeActions(out, d, snap, p.Range)
	return append(out, s.fixActions(d, snap, p.Range, false, true)...), nil
}

// writeActions appends the "Write lowered CUDA" actions to out.
func (s *Server) writeActions(out []protocol.CommandOrCodeAction, d *document, snap *snapshot, rng protocol.Range) []protocol.CommandOrCodeAction {
	if d.path == "" {
		return out
	}
	defs := 0
	for _, k := range snap.defs() {
		if !k.partial {
			defs++
		}
	}
	if defs == 0 {
		return out
	}
	targets := []string{""}
	off := source0(snap.text.m.Offset(rng.Start))
	if k := defAt(snap.defs(), off); k != nil && !k.partial && defs > 1 {
		targets = append(targets, k.name())
	}
	caps := s.caps.Load()
	kind := protocol.CodeActionKindSource
	sel := d.selected()
	for _, kernel := range targets {
		if _, _, err := snap.lowered(sel, kernel); err != nil {
			continue
		}
		title := "Write lowered CUDA to " + cuName(filepath.Base(d.path), kernel)
		switch _, cased := snap.kernels(sel, kernel); {
		case len(cased) == 1:
			title += fmt.Sprintf(" (case %d/%d)", cased[0].CaseIndex, cased[0].CaseCount)
		case len(cased) > 1:
			title += " (selected cases)"
		}
		cmd := protocol.Command{Title: title, Command: cmdWriteCUDA, Arguments: []protocol.LSPAny{mustJSON(string(d.uri))}}
		if kernel != "" {
			cmd.Arguments = append(cmd.Arguments, mustJSON(kernel))
		}
		if !caps.codeActionLiterals {
			if _, err := s.cuTarget(d, kernel); err == nil && !snap.low.HasErrors() {
				out = append(out, &cmd)
			}
			continue
		}
		a := &protocol.CodeAction{Title: title, Kind: &kind}
		_, refused := s.cuTarget(d, kernel)
		switch {
		case snap.low.HasErrors():
			if !caps.disabledActions {
				continue
			}
			a.Disabled = protocol.CodeActionDisabled{Reason: "the file has errors"}
		case refused != nil:
			if !caps.disabledActions {
				continue
			}
			a.Disabled = protocol.CodeActionDisabled{Reason: refused.Error()}
		}
		if caps.createFiles && refused == nil {
			_, edit, err := s.cudaEdit(d, snap, kernel)
			if err != nil {
				continue
			}
			a.Edit = edit
		} else {
			a.Command = cmd
		}
		out = append(out, a)
	}
	return out
}

// kindsWanted reports whether "quickfix" and "source" actions pass the
// only filter.
func kindsWanted(only []protocol.CodeActionKind) (quick, source bool) {
	if len(only) == 0 {
		return true, true
	}
	for _, k := range only {
		switch k {
		case "":
			return true, true
		case protocol.CodeActionKindQuickFix:
			quick = true
		case protocol.CodeActionKindSource:
			source = true
		}
	}
	return quick, source
}

// fixActions converts lower's fixes of snap to code actions: the renames
// whose span touches rng (quick), and the pin (a source action). Clients without
// code action literals get none (a fix is an edit, not a command).
func (s *Server) fixActions(d *document, snap *snapshot, rng protocol.Range, quick, pin bool) []protocol.CommandOrCodeAction {
	caps := s.caps.Load()
	if !caps.codeActionLiterals {
		return nil
	}
	m := snap.text.m
	lo, hi := source0(m.Offset(rng.Start)), source0(m.Offset(rng.End))
	var fixes []lower.Fix
	if quick {
		for _, f := range snap.low.DispatchFixes() {
			if f.Span.Start <= hi && lo <= f.Span.End {
				fixes = append(fixes, f)
			}
		}
		fixes = append(fixes, perfFixes(snap, lo, hi)...) // perf.go
		// The verified fixes of fallback-only calls, declining forced
		// variants and partial warps, and the "did you mean" of unknown
		// names (lower/fix.go).
		fixes = append(fixes, snap.low.QuickFixes(snap.opts, lo, hi)...)
	}
	if pin {
		if f, ok := snap.low.PinFix(); ok {
			fixes = append(fixes, f)
		}
	}
	var out []protocol.CommandOrCodeAction
	for _, f := range fixes {
		kind := protocol.CodeActionKindQuickFix
		if f.Kind == lower.SourceFix {
			kind = protocol.CodeActionKindSource
		}
		tes := []protocol.TextEdit{{Range: m.Range(f.Span), NewText: f.NewText}}
		for _, e := range f.More {
			tes = append(tes, protocol.TextEdit{Range: m.Range(e.Span), NewText: e.NewText})
		}
		edit := &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{d.uri: tes}}
		if caps.documentChanges {
			v := snap.text.version
			els := make([]protocol.TextDocumentEditElement, len(tes))
			for i := range tes {
				els[i] = &tes[i]
			}
			edit = &protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.TextDocumentEdit{
				TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}, Version: &v},
				Edits:        els,
			}}}
		}
		a := &protocol.CodeAction{Title: f.Title, Kind: &kind, Edit: edit}
		if f.Preferred {
			yes := true
			a.IsPreferred = &yes
		}
		if f.Diag != "" {
			for _, dg := range withPerf(snap) {
				if dg.Code == f.Diag && (dg.Span == f.Span || dg.Span == f.For) {
					a.Diagnostics = s.toProtocol(d.uri, m, []diag.Diagnostic{dg})
					break
				}
			}
		}
		out = append(out, a)
	}
	return out
}
