package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/dsl/source"
)

// cmdKernelSummary is the command an editor's status line asks what the
// kernel at the cursor lowers to.
const cmdKernelSummary = "tilels.kernelSummary"

// kernelSummary runs tilels.kernelSummary: the document URI and a kernel
// def (a position {"line", "character"} inside it, or its name as the
// case commands take it). It answers from the analysis of the newest
// version, for the def's selected case:
//
//	{"kernel": "copy", "case": 2, "count": 4, "label": "shape=(4, 6)",
//	 "calls": 3, "summary": "copy: gmem_smem ×2 · fallback ×1",
//	 "text": "copy 2/4 · copy: gmem_smem ×2 · fallback ×1",
//	 "tooltip": "...", "range": {...}}
//
// and null for a position outside every kernel def. calls counts the
// lowered tile calls (a call a Python loop unrolled once per instance);
// summary groups them by op, then by variant, in order of first
// appearance ("no variant" when none applied). A def that needs an
// unbound parameter has "unresolved": ["M"] and the summary
// "unresolved: needs M". range is the def's segment in the newest text.
func (s *Server) kernelSummary(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	if len(p.Arguments) != 2 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes the document URI and a kernel (position or name)", p.Command)
	}
	var first string
	if err := json.Unmarshal(p.Arguments[0], &first); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument 1 must be a string", p.Command)
	}
	d, err := s.commandDoc(p.Command, first)
	if err != nil {
		return nil, err
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	arg := json.RawMessage(p.Arguments[1])
	var def *kdef
	var pos protocol.Position
	if json.Unmarshal(arg, &pos) == nil && strings.Contains(string(arg), `"line"`) {
		def = defAt(snap.defs(), source.Pos(snap.text.m.Offset(pos)))
		if def == nil {
			return protocol.LSPAny("null"), nil
		}
	} else if def, err = findDef(d, snap, arg); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", p.Command, err)
	}
	return marshalAny(summarize(def, d.selected(), snap))
}

// summarize describes the selected case of def.
func summarize(def *kdef, sel selection, snap *snapshot) map[string]any {
	m := snap.text.m
	seg := def.seg()
	out := map[string]any{
		"kernel": def.key.String(),
		"range":  protocol.Range{Start: m.Position(int(seg.Start)), End: m.Position(int(seg.End))},
	}
	name := def.key.String()
	if def.partial {
		k := def.recs[0].Kernel
		if k.Foreign != "" {
			why := "not a CUDA kernel: target " + k.Foreign + " is not modelled"
			out["calls"] = len(k.Unresolved)
			out["summary"] = why
			out["text"] = name + " · " + why
			out["tooltip"] = fmt.Sprintf("kernel %s is written for target %s: tilels runs the CUDA dispatcher only", name, k.Foreign)
			return out
		}
		needs := strings.Join(k.Needs, ", ")
		out["unresolved"] = k.Needs
		out["calls"] = len(k.Unresolved)
		out["summary"] = "unresolved: needs " + needs
		out["text"] = name + " · unresolved: needs " + needs
		out["tooltip"] = fmt.Sprintf("kernel %s was not analysed: no binding source gives %s (bind it with `# tilels: bind` or the bind setting)", name, needs)
		return out
	}
	kv := sel.chosen(def)
	k := kv.Kernel
	summary := snap.prints.Summary(k).String() // lower.Summarize, once per kernel
	title := name
	tip := "kernel " + name
	if def.cases() {
		title += fmt.Sprintf(" %d/%d", k.CaseIndex, k.CaseCount)
		tip += fmt.Sprintf(" · case %d/%d: %s", k.CaseIndex, k.CaseCount, k.CaseLabel)
	} else if k.CaseLabel != "" {
		tip += " · bound: " + k.CaseLabel
	}
	tip += fmt.Sprintf(" · %s lowered", plural(int64(len(k.Calls)), "tile call"))
	if len(k.Calls) > 0 {
		tip += ": " + summary
	}
	out["case"] = max(k.CaseIndex, 1)
	out["count"] = max(k.CaseCount, 1)
	out["label"] = k.CaseLabel
	out["calls"] = len(k.Calls)
	out["summary"] = summary
	out["text"] = title + " · " + summary
	out["tooltip"] = tip
	return out
}
