package lsp

import "context"

// Exit ends the session: Serve returns 0 when shutdown came first, 1
// otherwise (LSP "exit").
func (s *Server) Exit(context.Context) error {
	code := 1
	if s.state.Load() == stateShutdown {
		code = 0
	}
	s.exitOnce.Do(func() { s.exit <- code })
	return nil
}
