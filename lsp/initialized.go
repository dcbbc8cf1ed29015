package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// Initialized pulls the settings when the client offers them.
func (s *Server) Initialized(context.Context, *protocol.InitializedParams) error {
	if s.caps.Load().configuration {
		s.background("initial configuration", s.pullSettings)
	}
	return nil
}
