package lsp

import "context"

// Shutdown stops the analyses; afterwards only exit is accepted.
func (s *Server) Shutdown(context.Context) error {
	s.state.Store(stateShutdown)
	s.closeAll()
	return nil
}
