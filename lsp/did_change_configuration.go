package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// DidChangeConfiguration re-reads the settings: pulled with
// workspace/configuration when the client supports it, else taken from
// the notification.
func (s *Server) DidChangeConfiguration(_ context.Context, p *protocol.DidChangeConfigurationParams) error {
	if s.caps.Load().configuration {
		s.background("configuration", s.pullSettings)
		return nil
	}
	raw := append([]byte(nil), p.Settings...)
	gen := s.confAsked.Add(1)
	s.background("configuration", func(ctx context.Context) { s.updateSettingsGen(ctx, gen, raw) })
	return nil
}
