package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// CodeLens puts "show lowered CUDA" above each kernel; it runs
// tilels.showLowered for that kernel.
func (s *Server) CodeLens(ctx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	out := []protocol.CodeLens{}
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return out, nil
	}
	v, err := d.readView(ctx)
	if err != nil {
		return nil, err
	}
	if v.snap == nil {
		return out, nil
	}
	for _, kv := range v.snap.low.Kernels {
		r, ok := v.rangeOf(kv.ToFile(kv.Kernel.Func.NameSpan))
		if !ok {
			continue
		}
		out = append(out, protocol.CodeLens{
			Range: r,
			Command: protocol.Command{
				Title:     "show lowered CUDA",
				Command:   cmdShowLowered,
				Arguments: []protocol.LSPAny{mustJSON(string(d.uri)), mustJSON(kv.Kernel.Name)},
			},
		})
	}
	return out, nil
}
