package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// cmdReference is the command an editor's status line asks which
// reference release a document is analysed under.
const cmdReference = "tilels.reference"

// reference runs tilels.reference: the document URI. It answers from the
// analysis of the newest version (lower.Reference):
//
//	{"release": "0.27.0.post1", "short": "0.27", "source": "environment",
//	 "why": "apache-tvm 0.27.0.post1 installed in /ws/.venv",
//	 "text": "TIRx 0.27 ✓ auto",
//	 "tooltip": "reference: apache-tvm 0.27.0.post1 (auto: installed in /ws/.venv)"}
//
// source is setting, directive, environment, file or default (docs/json.md).
func (s *Server) reference(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	var first string
	if len(p.Arguments) != 1 || json.Unmarshal(p.Arguments[0], &first) != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes the document URI", p.Command)
	}
	d, err := s.commandDoc(p.Command, first)
	if err != nil {
		return nil, err
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	r := snap.low.Reference
	return marshalAny(map[string]any{
		"release": r.Release.String(),
		"short":   r.Release.Short(),
		"source":  string(r.Source),
		"why":     r.Why,
		"text":    r.Label(),
		"tooltip": r.Line(),
	})
}
