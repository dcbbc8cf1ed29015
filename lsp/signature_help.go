package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/assist"
)

// SignatureHelp answers textDocument/signatureHelp (assist.Signature
// finds the call and the active parameter; this only converts).
func (s *Server) SignatureHelp(ctx context.Context, p *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	v, err := d.readView(ctx)
	if err != nil {
		return nil, err
	}
	h := assist.Signature(v.cur.src, v.cur.m.Offset(p.Position), assistEnv(v))
	if h == nil {
		return nil, nil
	}
	md := s.caps.Load().markdownHover
	si := protocol.SignatureInformation{Label: h.Label, Documentation: markup(h.Doc, md)}
	for _, hp := range h.Params {
		si.Parameters = append(si.Parameters, protocol.ParameterInformation{
			Label:         protocol.ParameterInformationLabelTuple{utf16Len(h.Label[:hp.Start]), utf16Len(h.Label[:hp.End])},
			Documentation: markup(hp.Doc, md),
		})
	}
	zero := uint32(0)
	out := &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{si}, ActiveSignature: &zero}
	if h.Active >= 0 {
		out.ActiveParameter = protocol.NewNullable(uint32(h.Active))
		out.Signatures[0].ActiveParameter = protocol.NewNullable(uint32(h.Active))
	}
	return out, nil
}
