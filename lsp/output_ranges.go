package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/lower"
)

// methodOutputRanges is the request that links a lowered view with its
// source (the Compiler Explorer colour-link): params {"uri": <a
// tilels-lowered URI>}; result
//
//	{
//	  "source":  <the source document's URI>,
//	  "version": <the source version the view shows>,
//	  "ranges":  [{"kind": "kernel" | "call", "kernel": <name>,
//	               "source": <Range in the source document>,
//	               "output": <Range in the lowered document>}, ...]
//	}
//
// Output ranges are whole lines: from (first line, 0) to (line after the
// last, 0). Each kernel comes before its tile calls, calls in output
// order; a call's output lies inside its kernel's; a tile call nested in
// another's lowering has no range of its own (lower.OutputRange). The
// ranges are those of the text the view shows now (workspace/
// textDocumentContent at the same version): a client asks again after
// each refresh. PTX and SASS views, views of an unopened source and views
// whose output is an error have no ranges.
const methodOutputRanges = "tilels/outputRanges"

type outputRangesParams struct {
	URI uri.URI `json:"uri"`
}

type outputRangesResult struct {
	Source  uri.URI       `json:"source"`
	Version int32         `json:"version"`
	Ranges  []outputRange `json:"ranges"`
}

type outputRange struct {
	Kind   string         `json:"kind"` // "kernel" or "call"
	Kernel string         `json:"kernel"`
	Source protocol.Range `json:"source"`
	Output protocol.Range `json:"output"`
}

// OutputRanges answers tilels/outputRanges.
func (s *Server) OutputRanges(ctx context.Context, raw protocol.LSPAny) (*outputRangesResult, error) {
	var p outputRangesParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %v", methodOutputRanges, err)
	}
	ref, err := parseLoweredURI(p.URI)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	res := &outputRangesResult{Source: ref.source, Version: -1, Ranges: []outputRange{}}
	d := s.doc(ref.source)
	if d == nil || ref.kind == "ptx" || ref.kind == "sass" {
		return res, nil
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	res.Version = snap.text.version
	_, rs := loweredMap(d, snap, ref, true)
	for _, r := range rs {
		kind := "kernel"
		if r.Call {
			kind = "call"
		}
		res.Ranges = append(res.Ranges, outputRange{
			Kind: kind, Kernel: r.Kernel,
			Source: snap.text.m.Range(r.Span),
			Output: protocol.Range{Start: protocol.Position{Line: uint32(r.Start)}, End: protocol.Position{Line: uint32(r.End)}},
		})
	}
	return res, nil
}

// loweredMap is lowered with the output map of the view's kind ("cu" or
// "tirx"): the same text, each def in its selected case.
func (s *snapshot) loweredMap(sel selection, name, kind string) (cuda, tirx string, rs []lower.OutputRange, err error) {
	var views []*lower.KernelView
	for _, d := range s.defs() {
		if !d.partial && (name == "" || d.name() == name) {
			views = append(views, sel.chosen(d))
		}
	}
	if len(views) == 0 && name != "" {
		return "", "", nil, s.noKernel(name)
	}
	if kind == "tirx" {
		tirx, rs = s.prints.TIRxMap(views)
		return "", tirx, rs, nil
	}
	if s.opts.LineDirectives != nil {
		cuda, rs, err = lower.CUDALinesMap(views, s.opts, lower.LineDirectives{Source: s.low.File, Path: s.opts.Path})
	} else {
		cuda, rs, err = s.prints.CUDAMap(views)
	}
	return cuda, "", rs, err
}
