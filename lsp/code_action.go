package lsp

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"
)

// CodeAction offers "Write lowered CUDA to <name>.cu" (the whole file)
// and, inside a kernel, the same for that kernel alone, each kernel def
// in its selected case (the title names it: "(case 2/4)"): a workspace edit
// that creates the file beside the source, so the editor can undo it. A
// client that cannot create files through edits gets the tilels.writeCUDA
// command instead; one without code action literals gets bare commands.
// With error diagnostics in the file the action is disabled (or left out
// where the client cannot show disabled actions).
func (s *Server) CodeAction(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	out := []protocol.CommandOrCodeAction{}
	if !kindWanted(p.Context.Only) {
		return out, nil
	}
	d := s.doc(p.TextDocument.URI)
	if d == nil || d.path == "" {
		return out, nil
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	defs := 0
	for _, k := range snap.defs() {
		if !k.partial {
			defs++
		}
	}
	if defs == 0 {
		return out, nil
	}
	targets := []string{""}
	off := source0(snap.text.m.Offset(p.Range.Start))
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
	return out, nil
}

// kindWanted reports whether a "source" action passes the only filter.
func kindWanted(only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, k := range only {
		if k == "" || k == protocol.CodeActionKindSource {
			return true
		}
	}
	return false
}
